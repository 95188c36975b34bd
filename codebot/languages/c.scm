; C. A function's name is at the bottom of its declarator (`const char **f(...)`): the query
; captures the declarator, matching only shapes that do name a function (code that macros garble
; into other shapes is left to chunks), and the `owner` hook (_cfamily.owner) reads the name.
; Prototypes (`int f(void);`) are not symbols: the definition is.
(function_definition
  declarator: (function_declarator declarator: (identifier)) @name) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: [
      (function_declarator declarator: (identifier))
      (pointer_declarator declarator: (function_declarator declarator: (identifier)))]) @name) @definition.function
; `void (*get_handler(int sig))(int)`: a function returning a function pointer.
(function_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator declarator: (function_declarator declarator: (identifier))))) @name) @definition.function
; Function-like macros are called like functions.
(preproc_function_def name: (identifier) @name) @definition.function

; Structs, unions and enums with a body; `typedef struct { ... } name;` is named by the typedef.
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(type_definition
  type: [(struct_specifier !name body: (_)) (union_specifier !name body: (_))]
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (enum_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.enum

; Names outside functions: an object-like `#define MAX 100` (with a value; not a header guard)
; and a `const`/`constexpr` declaration are constants, another initialized declaration
; (`int counter = 0;`) a variable; the first name of a declaration.
(preproc_def name: (identifier) @name value: (_)) @definition.constant
((declaration
   (type_qualifier) @_const
   declarator: (init_declarator declarator: (identifier) @name)) @definition.constant
 (#match? @_const "^(const|constexpr)$"))
(declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable

; Calls as written: `printf`, `p->next->cmp`, `(*cb)`.
(call_expression function: (_) @call)

(preproc_include) @import
