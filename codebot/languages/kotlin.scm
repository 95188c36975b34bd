; Types. The grammar has no field names; the keyword tells the kind. An `enum class` has the
; `class` keyword too: the predicate keeps it out of the class pattern by its header (annotations
; and modifier words, then `enum class`), so that each node is captured once.
(class_declaration "enum" (type_identifier) @name) @definition.enum
(class_declaration "interface" (type_identifier) @name) @definition.interface
((class_declaration "class" (type_identifier) @name) @definition.class
  (#not-match? @definition.class "^(?:@[^\\s(]+(?:\\([^()]*\\))?\\s*|[a-z]+\\s+)*enum\\s+class\\b"))
(object_declaration (type_identifier) @name) @definition.class
; A companion object is named by its own name, else `Companion` (by the owner hook).
(companion_object "object" @name) @definition.class

; Functions (a receiver `fun String.shout()` is resolved by the owner hook) and secondary
; constructors, named `constructor`.
(function_declaration (simple_identifier) @name) @definition.function
(secondary_constructor "constructor" @name) @definition.function

; `const val` (at top level or in an object) is a constant; a top-level `val`/`var` a variable
; (ALL_CAPS: a constant).
((property_declaration
   (modifiers (property_modifier) @_const)
   (variable_declaration (simple_identifier) @name)) @definition.constant
 (#eq? @_const "const"))
(source_file (property_declaration (variable_declaration (simple_identifier) @name)) @definition.variable)
; A class's, an interface's or an object's property (`val call: RoutingCall`, `override var client:
; HttpClient get() = ...`): a variable of the type, whose declared type the resolver reads off its
; signature (`call.respond()` in a lambda whose receiver has the property).
(class_body (property_declaration (variable_declaration (simple_identifier) @name)) @definition.variable)
; A type alias names a type as an interface does (`typealias RoutingHandler = suspend
; RoutingContext.() -> Unit`); the resolver reads what it stands for off its signature.
(type_alias (type_identifier) @name) @definition.interface

; Calls: the callee as written when it is a path of names (`this.repo.save`, `super.init`,
; `OrderService.create`, `Order` for a constructor call, `repo?.find`); the member name when the
; receiver is an expression (`let` for `repo.findById(id)?.let { }`, `doFinal` for
; `Mac.getInstance(a).apply { ... }.doFinal()`): its text would be long and say nothing of the
; receiver's type. Then `this(...)`/`super(...)` delegation, and a supertype's constructor call in
; a class header (`: BaseService(repo)`).
((call_expression . (_) @call . (call_suffix))
 (#match? @call "^[A-Za-z0-9_.?!@`<> ]+$"))
((call_expression
   . (navigation_expression (navigation_suffix (simple_identifier) @call) .) @_callee
   . (call_suffix))
 (#not-match? @_callee "^[A-Za-z0-9_.?!@`<> ]+$"))
(constructor_delegation_call ["this" "super"] @call)
(delegation_specifier (constructor_invocation (user_type) @call))

(import_header) @import
