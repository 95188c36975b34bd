; Zig (the pinned grammar's PEG-shaped tree: every declaration is a `Decl`, `pub` and `///` doc
; comments are its siblings before it). `fn name(...)` is a function, a method inside a
; container; `const Name = struct/enum/union/opaque {...}` is a type (`union(enum)` is a union,
; so the union patterns come first: the first capture of a node wins). Plain constants
; (`const std = @import("std")`, `const Allocator = std.mem.Allocator`) are aliases, not
; definitions: no symbol. `test "name" {}` blocks stay in the file's chunks.
((Decl (VarDecl variable_type_function: (IDENTIFIER) @name
   (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "union")))))) @definition.struct)
((Decl (VarDecl variable_type_function: (IDENTIFIER) @name
   (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "struct")))))) @definition.struct)
((Decl (VarDecl variable_type_function: (IDENTIFIER) @name
   (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "opaque")))))) @definition.struct)
((Decl (VarDecl variable_type_function: (IDENTIFIER) @name
   (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "enum")))))) @definition.enum)
(Decl (FnProto function: (IDENTIFIER) @name)) @definition.function

; Calls: `helper(x)` by its name, `self.run(x)` / `std.debug.print(...)` by the called name.
(SuffixExpr . (IDENTIFIER) @call . (FnCallArguments))
(FieldOrFnCall function_call: (IDENTIFIER) @call)

; `const clap = @import("clap");`, `const args = @import("clap/args.zig");`, and the aliases a
; container declares (`const Allocator = std.mem.Allocator;`, `const Self = @This();`): which of
; these bindings are imports is decided in `zig.py` (`_imports`).
(Decl (VarDecl (ErrorUnionExpr (SuffixExpr)))) @import
