; Definitions. A function inside a class body becomes a method (the engine decides, by nesting).
(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class

; Calls: the callee as written (`f`, `self.load`, `os.path.join`, `super().__init__`).
(call function: (_) @call)
; A loop over a value (`for x in obj`, a comprehension's `for`): the iteration protocol's calls
; where the value is an instance of a class (`languages/python.py` writes them; others drop out).
(for_statement right: [(identifier) (attribute) (call)] @call)
(for_in_clause right: [(identifier) (attribute) (call)] @call)

(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

; `raise Error` (no call written) instantiates the class: its constructor runs.
((raise_statement . [(identifier) (attribute)] @call)
  (#match? @call "(^|\\.)[A-Z][A-Za-z0-9_]*$"))
; Module-level names: `MAX = 10`, `app = Flask(__name__)`, `T: TypeAlias = int` (ALL_CAPS is a
; constant). Only statements of the module itself, one plain name bound; not in a class body.
(module (assignment left: (identifier) @name) @definition.variable)
