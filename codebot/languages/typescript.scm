; TypeScript's own definitions, scopes and calls; the rest is in ecmascript.scm (and jsx.scm for
; TSX).

; Overload signatures and `declare function`: each one is a symbol (`f`, `f#2`, ...).
(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
; A type alias names a type as an interface does; there is no closer kind.
(type_alias_declaration name: (type_identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum

; Method overload signatures and interface methods; abstract methods.
(method_signature name: (_) @name) @definition.function
(abstract_method_signature name: (_) @name) @definition.function

; Class fields holding a function (`handleClick = (e) => {...}`) or a nested class.
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(public_field_definition name: (_) @name value: (class)) @definition.class

; `namespace A.B {}`, `declare module Foo {}`, `declare module "express" {}` prefix their contents.
(internal_module name: [(identifier) (nested_identifier)] @name) @scope.namespace
(module name: [(identifier) (nested_identifier)] @name) @scope.namespace
(module name: (string (string_fragment) @name)) @scope.namespace

; The grammar reads `await a.get<T>(x)` as a call of `await a.get`: record the callee inside it.
(call_expression
  function: (await_expression [(identifier) (member_expression) (subscript_expression)] @call))
