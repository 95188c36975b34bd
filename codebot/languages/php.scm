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
; `$this->getHandler()`, `$a?->b()`, `parent::reset()`, `static::x()`, `Utils::jsonEncode()`,
; `\App\Utils::f()`, `$this->repo->save()`: PHP has no node spanning the callee without its
; arguments (object, name and arguments are siblings), so when the receiver is a plain name or a
; chain of properties `@call.expr` marks the whole call and the engine records the text from its
; start to the end of the method name. On any other receiver (`a()->b()`, `$xs[0]->c()`) just
; the method name is recorded: `b`, `c`.
((member_call_expression object: (_) @_obj name: (_) @call) @call.expr
 (#match? @_obj "^[$A-Za-z0-9_]+(->[A-Za-z0-9_]+)*$"))
((member_call_expression object: (_) @_obj name: (_) @call)
 (#not-match? @_obj "^[$A-Za-z0-9_]+(->[A-Za-z0-9_]+)*$"))
((nullsafe_member_call_expression object: (_) @_obj name: (_) @call) @call.expr
 (#match? @_obj "^[$A-Za-z0-9_]+$"))
((nullsafe_member_call_expression object: (_) @_obj name: (_) @call)
 (#not-match? @_obj "^[$A-Za-z0-9_]+$"))
((scoped_call_expression scope: (_) @_scope name: (_) @call) @call.expr
 (#match? @_scope "^[$A-Za-z0-9_\\\\]+$"))
((scoped_call_expression scope: (_) @_scope name: (_) @call)
 (#not-match? @_scope "^[$A-Za-z0-9_\\\\]+$"))
; `new User()`, `new \App\Post`: a call to the class.
(object_creation_expression [(name) (qualified_name)] @call)

; `use A\B;`, `use A\{B, C as D};`, `use function A\f;`, and `require 'x.php';` and its kin.
(namespace_use_declaration) @import
(require_expression) @import
(require_once_expression) @import
(include_expression) @import
(include_once_expression) @import

; Constants: `const X = 1` (at top level or in a class; the first of a list) and a top-level
; `define('X', 1)`. Properties belong to their class's code.
(const_declaration (const_element (name) @name)) @definition.constant
((program
   (expression_statement
     (function_call_expression
       function: (name) @_define
       arguments: (arguments . (argument (string (string_content) @name)))))
   @definition.constant)
 (#eq? @_define "define"))
