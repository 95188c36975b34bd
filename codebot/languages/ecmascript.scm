; JavaScript and TypeScript alike (the grammars share these nodes). javascript.scm and
; typescript.scm add what is their own; jsx.scm adds JSX components (.jsx, .tsx).
; Hooks in _ecmascript.py read the function or class behind a binding.

; --- definitions ---------------------------------------------------------------------------------
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function

; Methods, getters/setters, static and #private methods, object-literal shorthand methods.
(method_definition
  name: [(property_identifier) (private_property_identifier) (computed_property_name) (number)] @name)
  @definition.function
; `'quoted name'() {}`: the name without its quotes
(method_definition name: (string (string_fragment) @name)) @definition.function

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

; `{ onClick: () => {...} }`, `module.exports = { handler: async (req) => {...} }`
(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; `const api = { get() {...}, post: async () => {...} }`: the object prefixes its methods' ids
; (`scope.value`: an object holding no function is a variable, `const DEFAULTS = {...}`).
(variable_declarator name: (identifier) @name value: (object)) @scope.value

; Anonymous `export default function () {}` / `export default () => {}` / `export default class {}`:
; the `default` keyword is the name, so the definition is the export statement that holds both.
(export_statement
  "default" @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(export_statement "default" @name value: (class)) @definition.class

; Module-level names, after the functions and classes above (the first capture of a node wins):
; `const MAX = 10` (ALL_CAPS: a constant), `export let count = 0`, `var app = express()`. An
; import (`const x = require('x')`) stays an import.
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program
  (export_statement
    declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)))
(program
  (export_statement
    declaration: (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)))

; --- calls: the callee as written (`f`, `this.repo.save`, `super`), `new Foo()` ---------------------
(call_expression
  function: [(identifier) (member_expression) (subscript_expression) (super)] @call)
(new_expression constructor: [(identifier) (member_expression)] @call)

; --- imports -------------------------------------------------------------------------------------
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
