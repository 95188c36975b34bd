; Swift. `declaration_kind` tells a class_declaration's flavour apart; an actor is a class.
(class_declaration declaration_kind: "class" name: (_) @name) @definition.class
(class_declaration declaration_kind: "actor" name: (_) @name) @definition.class
(class_declaration declaration_kind: "struct" name: (_) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (_) @name) @definition.enum
; A protocol is an interface (a contract that types adopt; default implementations live in
; extensions, which are scopes below).
(protocol_declaration name: (_) @name) @definition.interface

; `extension Foo.Bar: P { ... }`: its functions are methods of Bar (SPEC.owner splits the name).
(class_declaration declaration_kind: "extension" name: (_) @name) @scope.type

; The grammar also tags the return type `name:`; the real name is the one right before the
; parameter list or the generic parameters. Operators (`==`, `<+>`) are names too.
(function_declaration name: _ @name . ["(" (type_parameters)]) @definition.function
(protocol_function_declaration name: _ @name . ["(" (type_parameters)]) @definition.function
(init_declaration name: _ @name) @definition.function
(deinit_declaration "deinit" @name) @definition.function
(subscript_declaration "subscript" @name) @definition.function

; Names: a top-level `let` is a constant (Swift's word), a top-level `var` a variable (ALL_CAPS: a
; constant); a type's `static let` is a constant. Instance properties belong to their type.
(source_file
  (property_declaration
    (value_binding_pattern "let")
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant)
(source_file
  (property_declaration
    (value_binding_pattern "var")
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)
(class_body
  (property_declaration
    (modifiers (property_modifier "static"))
    (value_binding_pattern "let")
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant)

; An enum's cases are its constants (`case redirect(count: Int), other`: the first name of the line;
; the resolver reads the others from the symbol's signature).
(enum_class_body
  (enum_entry name: (simple_identifier) @name) @definition.constant)

; Calls. `x[1]` is a call_expression too, with square brackets: not a call. A call is recorded as
; - the callee as written when it is a name or a path of names: `print`, `repo.fetch`,
;   `Foo.bar`, `super.init`, `delegate?.didFinish`, `.shared`, `User` for an initializer;
((call_expression . (_) @call . (call_suffix (value_arguments "(")))
 (#match? @call "^[.A-Za-z0-9_$?!<>, ]+$")
 (#not-match? @call "^!"))
((call_expression . (_) @call . (call_suffix . (lambda_literal)))  ; a trailing closure alone
 (#match? @call "^[.A-Za-z0-9_$?!<>, ]+$")
 (#not-match? @call "^!"))
; - the name on the right of an operator when the grammar binds the operator tighter than the call
;   (`Double.pi * square(r)`, `1 + f(2)`, `!isValid(x)`, `-f(x)`, `a + -f(x)`): the callee it
;   hangs off the operator, as written.
((call_expression
   . [(multiplicative_expression rhs: (_) @call)
      (additive_expression rhs: (_) @call)
      (multiplicative_expression rhs: (prefix_expression operation: [(bang) "-" "+" "~"] target: (_) @call))
      (additive_expression rhs: (prefix_expression operation: [(bang) "-" "+" "~"] target: (_) @call))
      (prefix_expression operation: [(bang) "-" "+" "~"] target: (_) @call)]
   . (call_suffix [(value_arguments "(") (lambda_literal)]))
 (#match? @call "^[.A-Za-z0-9_$?<>, ]+$"))
; - the member name when the receiver is an expression (`a.b(1).c()`, `xs.map { }.sorted()`): its
;   text would be long and say nothing of the receiver's type. Closures called on the spot
;   (`{ ... }()`) and subscripted callees are not recorded.
((call_expression
   . (navigation_expression suffix: (navigation_suffix suffix: (_) @call)) @_callee
   . (call_suffix (value_arguments "(")))
 (#not-match? @_callee "^[.A-Za-z0-9_$?!<>, ]+$"))
((call_expression
   . (navigation_expression suffix: (navigation_suffix suffix: (_) @call)) @_callee
   . (call_suffix . (lambda_literal)))
 (#not-match? @_callee "^[.A-Za-z0-9_$?!<>, ]+$"))

(import_declaration) @import
