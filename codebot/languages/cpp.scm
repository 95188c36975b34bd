; C++. As in C, a function captures its whole declarator, in the shapes that name a function (code
; that macros garble into other shapes is left to chunks), and the `owner` hook (_cfamily.owner)
; reads the name: `Widget<T>::make` is the method `make` of `Widget`; `~Widget`, `operator==` and
; `operator bool` keep their names. Declarations without a body are not symbols.
(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name) (template_function)]) @name) @definition.function
; `T *f()`, `T **f()`, `T &f()`, `T &&f()`.
(function_definition
  declarator: (pointer_declarator
    declarator: [
      (function_declarator
        declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name) (template_function)])
      (pointer_declarator
        declarator: (function_declarator
          declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name) (template_function)]))]) @name) @definition.function
(function_definition
  declarator: (reference_declarator
    (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name) (template_function)])) @name) @definition.function
; `void (*get_handler(int sig))(int)`: a function returning a function pointer.
(function_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator
        declarator: (function_declarator
          declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name) (template_function)])))) @name) @definition.function
; `operator bool() const`
(function_definition declarator: (operator_cast) @name) @definition.function
(preproc_function_def name: (identifier) @name) @definition.function

; Types with a body. A name may be qualified or a specialization (`struct hash<Key>`). An
; anonymous `enum : unsigned {}` parses with a zero-width MISSING name: `#match?` drops it;
; `enum : ullong {}` parses with an ERROR for its `:` and `ullong` as its name: the name must be
; the first named child.
(class_specifier
  name: [(type_identifier) (qualified_identifier) (template_type)] @name
  body: (field_declaration_list)) @definition.class
(struct_specifier
  name: [(type_identifier) (qualified_identifier) (template_type)] @name
  body: (field_declaration_list)) @definition.struct
(union_specifier
  name: [(type_identifier) (qualified_identifier) (template_type)] @name
  body: (field_declaration_list)) @definition.struct
(enum_specifier
  .
  name: [(type_identifier) (qualified_identifier)] @name
  body: (enumerator_list)
  (#match? @name ".")) @definition.enum
(type_definition
  type: [(struct_specifier !name body: (_)) (class_specifier !name body: (_)) (union_specifier !name body: (_))]
  declarator: (type_identifier) @name) @definition.struct

; Namespaces prefix ids; `namespace a::b` is two levels, an anonymous namespace none.
(namespace_definition name: (_) @name body: (declaration_list)) @scope.namespace

; Names outside functions: an object-like `#define MAX 100` (with a value; not a header guard)
; and a `const`/`constexpr` declaration are constants, another initialized declaration
; (`int counter = 0;`) a variable; the first name of a declaration.
(preproc_def name: (identifier) @name value: (_)) @definition.constant
((declaration
   (type_qualifier) @_const
   declarator: (init_declarator declarator: (identifier) @name)) @definition.constant
 (#match? @_const "^(const|constexpr)$"))
(declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable

; Calls as written: `helper`, `std::make_unique<T>`, `p->init`, `this->run`, `Widget::helper`;
; `new Widget<T>(n)` calls the constructor of `Widget<T>`.
(call_expression function: (_) @call)
(new_expression type: (_) @call)

; `#include`, `using namespace std;`, `using std::string;`, `namespace fs = std::filesystem;`.
(preproc_include) @import
(using_declaration) @import
(namespace_alias_definition) @import
