; TypeScript (tsx.scm adds JSX to this query). Hooks in _ecmascript.py read the function or class
; behind a binding.

; --- definitions ---------------------------------------------------------------------------------
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
; Overload signatures and `declare function`: each one is a symbol (`f`, `f#2`, ...).
(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
; A type alias names a type as an interface does; there is no closer kind.
(type_alias_declaration name: (type_identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum

; Methods, getters/setters, static and #private methods, object-literal shorthand methods; method
; overload signatures and interface methods; abstract methods.
(method_definition
  name: [(property_identifier) (private_property_identifier) (computed_property_name) (number)] @name)
  @definition.function
; `'quoted name'() {}`: the name without its quotes
(method_definition name: (string (string_fragment) @name)) @definition.function
(method_signature name: (_) @name) @definition.function
(abstract_method_signature name: (_) @name) @definition.function

; Class fields holding a function (`handleClick = (e) => {...}`) or a nested class.
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(public_field_definition name: (_) @name value: (class)) @definition.class

; `const f = () => {}`, `let g = async function () {}`, `const Foo = class {}`
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class

; `Foo.prototype.bar = function () {}`, `exports.run = async () => {}` (owner hook decides whose).
; Statements only, and never `this.x = ...`: those are fields, not definitions.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: [(identifier) (member_expression)]
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)]) @definition.function)

; `{ onClick: () => {...} }`, `export default { handler: async (req) => {...} }`
(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; `const api = { get() {...}, post: async () => {...} }`: the object prefixes its methods' ids.
(variable_declarator name: (identifier) @name value: (object)) @scope.namespace

; Anonymous `export default function () {}` / `export default () => {}` / `export default class {}`:
; the `default` keyword is the name, so the definition is the export statement that holds both.
(export_statement
  "default" @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(export_statement "default" @name value: (class)) @definition.class

; `namespace A.B {}`, `declare module Foo {}`, `declare module "express" {}` prefix their contents.
(internal_module name: [(identifier) (nested_identifier)] @name) @scope.namespace
(module name: [(identifier) (nested_identifier)] @name) @scope.namespace
(module name: (string (string_fragment) @name)) @scope.namespace

; --- calls: the callee as written (`f`, `this.repo.save`, `super`), `new Foo()` ---------------------
(call_expression
  function: [(identifier) (member_expression) (subscript_expression) (super)] @call)
(new_expression constructor: [(identifier) (member_expression)] @call)
; The grammar reads `await a.get<T>(x)` as a call of `await a.get`: record the callee inside it.
(call_expression
  function: (await_expression [(identifier) (member_expression) (subscript_expression)] @call))

; --- imports -------------------------------------------------------------------------------------
; ES imports, `import fs = require('fs')`, and re-exports `export ... from 'm'`.
(import_statement) @import
(export_statement source: (string)) @import

; `const x = require('m')`, `const {a, b: c} = require('m')`, `const y = require('m').y`,
; `const debug = require('debug')('app')`, `const m = await import('m')`
(variable_declarator
  value: [
    (call_expression function: (identifier) @_req arguments: (arguments . (string)))
    (member_expression
      object: (call_expression function: (identifier) @_req arguments: (arguments . (string))))
    (call_expression
      function: (call_expression function: (identifier) @_req arguments: (arguments . (string))))
  ]
  (#eq? @_req "require")) @import
(variable_declarator
  value: (await_expression (call_expression function: (import) arguments: (arguments . (string))))) @import

; `require('dotenv/config');` and `import('./side-effect');` as statements
(expression_statement
  (call_expression function: (identifier) @_req arguments: (arguments . (string))) @import
  (#eq? @_req "require"))
(expression_statement
  (call_expression function: (import) arguments: (arguments . (string))) @import)
