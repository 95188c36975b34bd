; JavaScript's own definitions; the rest is in ecmascript.scm (and jsx.scm).

(class_declaration name: (identifier) @name) @definition.class

; Class fields holding a function (`handleClick = (e) => {...}`) or a nested class.
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(field_definition property: (_) @name value: (class)) @definition.class
