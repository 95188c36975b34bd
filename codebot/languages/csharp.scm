; Namespaces prefix the ids of what they contain. A file-scoped `namespace A.B;` is a sibling of
; the declarations after it, so the scope is the whole compilation unit (C# allows only usings
; before it), named by the namespace.
(namespace_declaration name: (_) @name) @scope.namespace
(compilation_unit (file_scoped_namespace_declaration name: (_) @name)) @scope.namespace
; A namespace the grammar could not close (a method header split by `#if`/`#else`, as in
; Newtonsoft.Json's TestFixtureBase.cs) is an ERROR node starting `namespace A.B {`: still the
; scope of what it holds. (Anchored at the ERROR's first child, and the keyword checked: a looser
; pattern captured other ERROR nodes as scopes.)
((ERROR . "namespace" @_ns . [(qualified_name) (identifier)] @name) @scope.namespace
 (#eq? @_ns "namespace"))

; Types. `record struct` is a struct, any other record a class: the predicate keeps a record
; struct out of the class pattern by its header (attributes and modifiers, then `record struct`),
; so that each node is captured once.
(record_declaration "struct" name: (identifier) @name) @definition.struct
((record_declaration name: (identifier) @name) @definition.class
  (#not-match? @definition.class "^(?:\\[[^\\]]*\\]\\s*|[a-z]+\\s+)*record\\s+struct\\b"))
(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum

; Constants: `const` and `static readonly` fields (the first name of a declaration). Other fields
; belong to their type's code.
(field_declaration
  (modifier "const")
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.constant
(field_declaration
  (modifier "static") (modifier "readonly")
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.constant
(field_declaration
  (modifier "readonly") (modifier "static")
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.constant

; Members. Constructors are named after the class; the owner hook names destructors `~T`,
; operators `operator +` and indexers `this[]`. Only properties with code (an accessor body or
; `=> expr`) are symbols; auto-properties stay part of their type.
(method_declaration name: (identifier) @name) @definition.function
(constructor_declaration name: (identifier) @name) @definition.function
(destructor_declaration name: (identifier) @name) @definition.function
(operator_declaration operator: _ @name) @definition.function
(conversion_operator_declaration type: (_) @name) @definition.function
(indexer_declaration "this" @name) @definition.function
(local_function_statement name: (identifier) @name) @definition.function
(property_declaration name: (identifier) @name value: (arrow_expression_clause)) @definition.function
(property_declaration
  name: (identifier) @name
  accessors: (accessor_list (accessor_declaration body: (_)))) @definition.function

; Calls: the callee as written when it is a path of names (`this._repo.SaveAsync`, `Log`,
; `Helper.Log<int>`, `_repo?.Find`); the member name when the receiver is an expression
; (`Map` for `_repo.Find(id)?.Map(...)`, `Where` for a fluent chain): its text would be long and
; say nothing of the receiver's type.
((invocation_expression function: (_) @call)
 (#match? @call "^[A-Za-z0-9_@.?<>, ]+$"))
((invocation_expression function: (member_access_expression name: (_) @call) @_callee)
 (#not-match? @_callee "^[A-Za-z0-9_@.?<>, ]+$"))
((invocation_expression
   function: (conditional_access_expression (member_binding_expression name: (_) @call)) @_callee)
 (#not-match? @_callee "^[A-Za-z0-9_@.?<>, ]+$"))
; `new Order(id)`, `new List<int>()`, `new Acme.Order()`: a call to the constructor `Order`/`List`
; (its type arguments kept: `Database<Db>` is another type than `Database`).
(object_creation_expression type: [(identifier) (qualified_name) (generic_name)] @call)
; `: base(repo)` / `: this(...)` in a constructor.
(constructor_initializer ["base" "this"] @call)

(using_directive) @import
