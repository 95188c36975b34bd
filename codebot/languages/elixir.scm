; Elixir. Every construct is a `call`: `defmodule Name do`, `def name(args) do`, `alias X`.
; A module is a symbol (`defprotocol` an interface) and its functions are its methods
; (`Shop.Cart.add`). Its outline is its own code: the header, `@moduledoc`, `use`/`alias`,
; attributes and each member's signature line; a member's `@doc` and `@spec` belong to the
; member (elixir.py's `lead`), so a module costs its outline, not its whole documentation.
; `defmodule Shop.Cart` is `Cart` under `Shop` (elixir.py splits the alias); a nested
; `defmodule` nests, as Elixir names it (`Outer.Inner`).
((call target: (identifier) @_kw (arguments . (alias) @name)) @definition.module
 (#eq? @_kw "defmodule"))
((call target: (identifier) @_kw (arguments . (alias) @name)) @definition.interface
 (#eq? @_kw "defprotocol"))
; `def name(args)`, `def name(args) when guard`, `def name` (no parentheses): functions, methods
; of the module around them.
((call target: (identifier) @_kw
   (arguments . [(call target: (identifier) @name)
                 (binary_operator left: (call target: (identifier) @name))
                 (identifier) @name])) @definition.function
 (#match? @_kw "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp)$"))

; Calls: `Price.total`, `Shop.Util.helper`, `__MODULE__.zero` (a module's function) and local
; calls `normalize(x)`, not the special forms and the definitions' keywords (elixir.py marks a
; definition's head, `add(cart)` in `def add(cart)`, which is no call).
(call target: (dot left: [(alias) (identifier)] right: (identifier)) @call
 (arguments))
((call target: (identifier) @call)
 (#not-match? @call "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|defn|defnp|alias|import|require|use|if|unless|case|cond|with|for|fn|quote|unquote|unquote_splicing|receive|try|raise|reraise|throw|super|__MODULE__|__aliases__|doc|moduledoc|typedoc|spec|type|typep|opaque|callback|impl|behaviour|derive|enforce_keys)$"))

; `alias Shop.Cart`, `alias Shop.{Item, Price}`, `alias Shop.Cart, as: C`, `import X`,
; `require X`, `use X`.
((call target: (identifier) @_kw (arguments . [(alias) (dot)])) @import
 (#match? @_kw "^(alias|import|require|use)$"))
