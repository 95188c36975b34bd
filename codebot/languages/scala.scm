; A package with a body (`package a.b { ... }`) prefixes the ids of what it contains; a plain
; `package a.b` clause does not (the module id comes from the file's path).
(package_clause name: (_) @name body: (_)) @scope.namespace

; An extension adds methods to the type of its parameter: `extension (s: String) def shout` is
; `String.shout` (the owner hook drops type arguments: `List[T]` -> `List`).
(extension_definition parameters: (parameters . (parameter type: (_) @name))) @scope.type

; Types. Objects (and named `given ... with` instances) are modules, as scalac calls them.
(class_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(enum_definition name: (identifier) @name) @definition.enum
(object_definition name: (identifier) @name) @definition.module
(given_definition name: (identifier) @name body: (with_template_body)) @definition.module

; Functions: `def` with a body, and abstract ones (`def call(a: Int): Int`). An auxiliary
; constructor is named `this`.
(function_definition name: (_) @name) @definition.function
(function_declaration name: (_) @name) @definition.function

; Names at top level and in an `object` (a class's or trait's are its code): `final val` is a
; constant (Scala's constant value definition), any other `val` or `var` a variable (ALL_CAPS: a
; constant); the first name of a pattern.
((val_definition (modifiers) @_final pattern: (identifier) @name) @definition.constant
 (#match? @_final "final"))
(compilation_unit [(val_definition pattern: (identifier) @name) (var_definition pattern: (identifier) @name)] @definition.variable)
(object_definition
  body: (template_body
    [(val_definition pattern: (identifier) @name) (var_definition pattern: (identifier) @name)] @definition.variable))

; Calls: the callee as written when it is a path of names (`this.repo.save`, `super.init`,
; `OrderService.create`, `foo[Int]`); the member name when the receiver is an expression (`map`
; for `repo.findById(id).map(f)`): its text would be long and say nothing of the receiver's type.
; A curried call `f(a)(b)` is recorded once, by its first clause. Then `new Order(id)`,
; `new Foo[T]`, `new a.b.Foo` as a call to the constructor.
((call_expression function: (_) @call)
 (#match? @call "^[A-Za-z0-9_$.\\[\\]`, ]+$"))
((call_expression function: (field_expression field: (_) @call) @_callee)
 (#not-match? @_callee "^[A-Za-z0-9_$.\\[\\]`, ]+$"))
((call_expression function: (generic_function function: (field_expression field: (_) @call)) @_callee)
 (#not-match? @_callee "^[A-Za-z0-9_$.\\[\\]`, ]+$"))
((instance_expression . [(type_identifier) (stable_type_identifier)] @call) @call.expr)
((instance_expression . (generic_type) @call) @call.expr)

(import_declaration) @import
