; Ruby. Blocks, lambdas and `class << self` are not symbols: a `def` inside `class << self` is a
; method of the class around it.
(method name: (_) @name) @definition.function
; `def self.build`: a method of the enclosing class, under its plain name.
(singleton_method name: (_) @name) @definition.function
; `class A::B` is named by the whole scope_resolution; SPEC.owner splits it.
(class name: (_) @name) @definition.class
(module name: (_) @name) @definition.module
; `VERSION = "1.0"`, `DEFAULTS = {...}`: a constant, at top level or in a class or module body.
(assignment left: (constant) @name) @definition.constant

; Calls. Ruby has no node for "receiver.method" without the arguments, so a call is recorded as:
; - the method name when there is no receiver (`puts x`, `new(attrs)`), which is the whole callee.
;   Visibility keywords (`private`, `private def x`) are no call graph edges. `super`, bare or with
;   arguments, is the `super` node. (#not-any-of? is silently ignored by py-tree-sitter 0.26.)
((call !receiver method: (_) @call)
 (#not-match? @call "^(super|private|protected|public|module_function|private_class_method|public_class_method|private_constant)$"))
(super) @call
; - the call itself, exactly as written, when the receiver is a plain name (a variable, constant,
;   `self`, `A::B`) and there are neither arguments nor block: `self.save`, `@repo.items`;
((call receiver: (_) @_recv !arguments !block) @call
 (#match? @_recv "^(::)?[@$]{0,2}[A-Za-z_][A-Za-z0-9_:]*$"))
; - with arguments or a block on such a receiver, `@call.expr` marks the whole call and the engine
;   records the text from its start to the end of the method name: `@repo.find(1)` ->
;   `@repo.find`, `IPAddr.new(s)` -> `IPAddr.new`, `self.call(env)` -> `self.call`;
((call receiver: (_) @_recv method: (_) @call arguments: (_)) @call.expr
 (#match? @_recv "^(::)?[@$]{0,2}[A-Za-z_][A-Za-z0-9_:]*$"))
((call receiver: (_) @_recv method: (_) @call !arguments block: (_)) @call.expr
 (#match? @_recv "^(::)?[@$]{0,2}[A-Za-z_][A-Za-z0-9_:]*$"))
; - else the method name: on a receiver that is an expression (`a.b(1).c` -> `c`), whose text says
;   nothing of its type.
((call receiver: (_) @_recv method: (_) @call)
 (#not-match? @_recv "^(::)?[@$]{0,2}[A-Za-z_][A-Za-z0-9_:]*$"))

; `require "json"`, `require_relative "../lib/base"` (only with a literal path).
((call
   !receiver
   method: (identifier) @_req
   arguments: (argument_list . (string) .)) @import
 (#any-of? @_req "require" "require_relative" "load"))
