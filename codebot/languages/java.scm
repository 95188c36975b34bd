; Types. Records are classes; an annotation type (`@interface`) is an interface.
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum

; Members: methods, constructors (named after the class, so overloads get `#2`), a record's compact
; constructor, and an annotation type's elements (`String value() default "";`).
(method_declaration name: (identifier) @name) @definition.function
(constructor_declaration name: (identifier) @name) @definition.function
(compact_constructor_declaration name: (identifier) @name) @definition.function
(annotation_type_element_declaration name: (identifier) @name) @definition.function

; Constants: `static final` fields (the first name of a declaration) and an interface's fields.
; Other fields belong to their type's code.
(field_declaration
  (modifiers "static" "final")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(field_declaration
  (modifiers "final" "static")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant

; Calls. A method_invocation has no node spanning just `this.repo.save` (object and name are
; siblings of the arguments). When the receiver is a plain name (`this.repo`, `repo`,
; `OrderService`, `super`), `@call.expr` marks the whole call and the engine records the text
; from its start to the end of `@call` (`this.repo.save`); otherwise just the method name.
; A chain on a call (`new GsonBuilder().create()`, `gson.toJsonTree(x).getAsJsonObject()`) is
; recorded whole too: the resolver follows the declared return types along it.
((method_invocation object: (_) @_obj name: (identifier) @call) @call.expr
 (#match? @_obj "^[A-Za-z0-9_$.]+$"))
(method_invocation object: [(method_invocation) (object_creation_expression)]
 name: (identifier) @call) @call.expr
((method_invocation object: (_) @_obj name: (identifier) @call)
 (#not-match? @_obj "^[A-Za-z0-9_$.]+$"))
(method_invocation !object name: (identifier) @call)
; `super(...)` / `this(...)` in a constructor.
(explicit_constructor_invocation constructor: (_) @call)
; `new Foo(...)`, `new Foo<>(...)`, `new a.b.Foo(...)`: a call to the constructor `Foo`.
(object_creation_expression type: [(type_identifier) (scoped_type_identifier)] @call)
(object_creation_expression type: (generic_type [(type_identifier) (scoped_type_identifier)] @call))
; `OrderService::create`, `this::handle`: a reference that will be called, kept as written.
(method_reference) @call

(import_declaration) @import
