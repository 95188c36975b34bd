; Rust.
(function_item name: (identifier) @name) @definition.function
; A bodiless `fn` in a trait (a required method) or an `extern` block.
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait

; `impl Type` and `impl Trait for Type` add methods to Type: the `owner` hook reduces the captured
; type (`Server<T>`, `&'a mut crate::Item`) to its bare name. The trait is recorded as a base of
; Type's own definition (see `_bases` in rust.py).
(impl_item type: (_) @name) @scope.type

; An inline `mod name { ... }` prefixes the ids inside it; `mod name;` (another file) does not.
(mod_item name: (identifier) @name body: (declaration_list)) @scope.namespace

; `const MAX: usize = 10` and `static NAME: &str` are constants (in a module, an impl or a
; trait too; not in a function's body); `static mut` is a variable.
(static_item (mutable_specifier) name: (identifier) @name) @definition.variable.mutable
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant

; Calls, as written: `foo`, `Self::new`, `self.inner.get`, `Vec::<u8>::new`, `helper::<T>`.
; Macro invocations (`println!`) are not calls, and their token trees are not parsed.
(call_expression function: (_) @call)

(use_declaration) @import
(extern_crate_declaration) @import
