; Go. Methods are top-level `method_declaration`s: the `owner` hook reads the receiver type, so
; `func (s *Server) Handle()` becomes the method `Server.Handle`.
(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.function

; Named struct and interface types. The symbol spans the whole `type X ...` declaration when it
; declares one type (see `outer` in go.py); other named types (`type ID int`) stay in chunks.
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface

; Interface methods: functions directly inside an interface, so methods of it.
(method_elem name: (field_identifier) @name) @definition.function

; Package-level names: `const Max = 10` and each name of a `const ( ... )` group are constants,
; `var cache = ...` a variable (its first name when it binds several).
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file
  (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))

; Calls: the callee as written (`fmt.Println`, `s.repo.Save`), not an immediately called
; `func() {...}()`. A call of an instantiated generic function (`Map[int](xs)`) parses as a
; conversion to a generic type.
(call_expression
  function: [(identifier) (selector_expression) (index_expression) (parenthesized_expression)] @call)
(type_conversion_expression type: (generic_type) @call)

(import_declaration) @import
