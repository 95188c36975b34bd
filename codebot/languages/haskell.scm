; Haskell. A top-level function is each of its equations (`f [] = ...`, `f (x:xs) = ...`: `f`,
; `f#2`); its type signature is read by haskell.py (the symbol's return type). `data` and
; `newtype` are structs, a `class` an interface whose signatures are its methods. Instances and
; `where` bindings stay in their chunk or function.
(declarations (function name: (variable) @name) @definition.function)
(declarations (bind name: (variable) @name) @definition.function)
(declarations (data_type name: (name) @name) @definition.struct)
(declarations (newtype name: (name) @name) @definition.struct)
(declarations (class name: (name) @name) @definition.interface)
(class_declarations (signature name: (variable) @name) @definition.function)

; Calls: the function of an application, plain (`fromMaybe`) or qualified (`M.lookup`).
(apply function: [(variable) (qualified)] @call)

; `import`s, and the module's export list (haskell.py writes both as imports).
(import) @import
(header) @import
