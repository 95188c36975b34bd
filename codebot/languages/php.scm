; PHP. Methods are functions inside a class-like body (the engine makes them methods).
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.function
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum

; `namespace A\B { ... }` scopes its body; `namespace A\B;` has no body, and SPEC.outer stretches
; it over the rest of the file. SPEC.owner splits `A\B` into nested parts.
(namespace_definition name: (namespace_name) @name) @scope.namespace

; Calls. `helper($x)`, `$callback()`: the callee as written.
(function_call_expression function: (_) @call)
; `$this->repo->save($x)`, `$a?->b()`, `User::find($id)`, `parent::__construct()`: PHP has no node
; spanning the callee without its arguments (object, name and arguments are siblings), so the
; method name is recorded: `save`, `b`, `find`, `__construct`.
(member_call_expression name: (_) @call)
(nullsafe_member_call_expression name: (_) @call)
(scoped_call_expression name: (_) @call)
; `new User()`, `new \App\Post`: a call to the class.
(object_creation_expression [(name) (qualified_name)] @call)

; `use A\B;`, `use A\{B, C as D};`, `use function A\f;`, and `require 'x.php';` and its kin.
(namespace_use_declaration) @import
(require_expression) @import
(require_once_expression) @import
(include_expression) @import
(include_once_expression) @import
