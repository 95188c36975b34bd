; Lua. `function M.find()` and `function M:find()` are methods of the table `M` (lua.py's owner
; splits the name); `local function f()` and `function f()` are functions.
(function_declaration name: [(identifier) (dot_index_expression) (method_index_expression)] @name)
  @definition.function
; `M.setup = function(opts) ... end`, `local f = function() ... end`: the assignment is the
; symbol (lua.py's outer widens `local f = ...` to its declaration).
(assignment_statement
  (variable_list . name: [(identifier) (dot_index_expression)] @name .)
  (expression_list . value: (function_definition) .)) @definition.function

; Module-level values: `local M = {}`, `local DEFAULTS = {...}`, `M.config = {...}`, `GLOBAL = 1`.
; The assignment is captured, as for a function above, so that one whose value is a function is
; the function (the earlier capture of one node wins).
(chunk (variable_declaration
  (assignment_statement (variable_list . name: (identifier) @name)) @definition.variable))
(chunk (assignment_statement
  (variable_list . name: [(identifier) (dot_index_expression)] @name)) @definition.variable)

; Calls, as written: `helper`, `M.find`, `vim.api.nvim_buf_get_lines`, `self:close`,
; `require("telescope.actions").close` (the resolver reads the module off the require).
(function_call name: [(identifier) (dot_index_expression) (method_index_expression)] @call)

; `local util = require("telescope.utils")` (the assignment, so that `util` is no variable) and
; `require("x")` alone as a statement.
(variable_declaration (assignment_statement
  (expression_list . value: (function_call
    name: (identifier) @_req
    arguments: (arguments . (string) .)) .)) @import
  (#eq? @_req "require"))
([(chunk (function_call
           name: (identifier) @_req
           arguments: (arguments . (string) .)) @import)
  (block (function_call
           name: (identifier) @_req
           arguments: (arguments . (string) .)) @import)]
 (#eq? @_req "require"))
