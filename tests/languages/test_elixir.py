import textwrap

from codebot.core.model import Import, Parameter

SOURCE = '''
defmodule Shop.Cart do
  @moduledoc """
  A shopping cart.
  """
  alias Shop.{Item, Price}
  alias Shop.Tax.Rules, as: TaxRules
  import Shop.Util
  require Logger
  use GenServer

  @doc """
  Adds `qty` of an item.
  """
  @spec add(map, Item.t(), integer) :: map
  def add(cart, %Item{} = item, qty \\\\ 1) do
    Price.total(cart) |> normalize()
    TaxRules.apply(item)
  end

  @doc false
  def reset(cart), do: cart

  # Keeps totals positive.
  defp normalize(x) when is_number(x), do: abs(x)

  defmacro guarded(expr), do: expr

  def empty, do: %{}

  defmodule Line do
    def new(item), do: {item, 1}
  end
end
'''


def test_definitions_ids_kinds_lines(parse):
    p = parse("elixir", "lib/shop/cart.ex", SOURCE)
    m = "lib.shop.cart.Shop.Cart"
    # A module is a symbol; its functions are its methods, under its name.
    assert p.ids == [
        m,
        f"{m}.add",
        f"{m}.reset",
        f"{m}.normalize",
        f"{m}.guarded",
        f"{m}.empty",
        f"{m}.Line",
        f"{m}.Line.new",
    ]
    assert (p[m].kind, p[m].name, p[m].signature) == ("module", "Cart", "defmodule Shop.Cart")
    assert p[m].docstring == "A shopping cart."
    assert (p[f"{m}.Line"].kind, p[f"{m}.Line"].parent) == ("module", m)
    assert p[f"{m}.add"].kind == "method"
    assert (p[f"{m}.add"].class_name, p[f"{m}.add"].parent) == ("Cart", m)
    assert p[f"{m}.Line.new"].class_name == "Line"
    # A function's lines start at its `@doc` (past the `@spec`): it carries its documentation.
    assert (p[f"{m}.add"].start_line, p[f"{m}.add"].end_line) == (11, 18)
    assert (p[f"{m}.reset"].start_line, p[f"{m}.reset"].end_line) == (20, 21)  # `@doc false`
    assert p[f"{m}.normalize"].start_line == 24  # a comment is no attribute
    assert p[f"{m}.add"].signature == "def add(cart, %Item{} = item, qty \\\\ 1)"
    assert p[f"{m}.normalize"].signature == "defp normalize(x) when is_number(x)"
    # No chunks: the module covers the file.
    assert [s for s in p.result.symbols if s.kind == "chunk"] == []


def test_a_module_is_indexed_and_shown_by_its_outline(parse, make_repo):
    """The module's text is its header, `@moduledoc`, `alias`/`use` and each member's signature
    line; the members' `@doc`s and bodies are theirs, not the module's (Phoenix's modules run to
    hundreds of lines of documentation)."""
    from codebot.core.config import load_config
    from codebot.index.build import build_index, indexed_code
    from codebot.index.overlay import open_index

    p = parse("elixir", "lib/shop/cart.ex", SOURCE)
    texts = dict(zip(p.ids, indexed_code(p.result, textwrap.dedent(SOURCE).lstrip("\n").encode())))
    module = texts["lib.shop.cart.Shop.Cart"]
    assert module.splitlines() == [
        "defmodule Shop.Cart do",
        '  @moduledoc """',
        "  A shopping cart.",
        '  """',
        "  alias Shop.{Item, Price}",
        "  alias Shop.Tax.Rules, as: TaxRules",
        "  import Shop.Util",
        "  require Logger",
        "  use GenServer",
        "",
        "  def add(cart, %Item{} = item, qty \\\\ 1) do",
        "",
        "  def reset(cart), do: cart",
        "",
        "  # Keeps totals positive.",
        "  defp normalize(x) when is_number(x), do: abs(x)",
        "",
        "  defmacro guarded(expr), do: expr",
        "",
        "  def empty, do: %{}",
        "",
        "  defmodule Line do",
        "end",
    ]
    # The member keeps its documentation.
    assert texts["lib.shop.cart.Shop.Cart.add"].startswith('  @doc """\n  Adds `qty` of an item.')

    # What an index shows of it (`codebot context`, the token budget) is the same outline.
    repo = make_repo({"lib/shop/cart.ex": textwrap.dedent(SOURCE).lstrip("\n")})
    config = load_config(repo, {"embedder": "none"})
    build_index(repo, config)
    index = open_index(repo, config)
    shown = {s.id: index.code(s, outline=True) for s in index.symbols}
    assert shown["lib.shop.cart.Shop.Cart"] == module
    assert "Adds `qty`" not in shown["lib.shop.cart.Shop.Cart"]
    assert "@spec" not in shown["lib.shop.cart.Shop.Cart"]


def test_parameters_and_docs(parse):
    p = parse("elixir", "lib/shop/cart.ex", SOURCE)
    m = "lib.shop.cart.Shop.Cart"
    assert p[f"{m}.add"].parameters == (
        Parameter("cart"),
        Parameter("%Item{} = item"),
        Parameter("qty", None, "1"),
    )
    assert p[f"{m}.empty"].parameters == ()
    assert p[f"{m}.add"].docstring == "Adds `qty` of an item."  # past the @spec
    assert p[f"{m}.reset"].docstring is None  # @doc false
    assert p[f"{m}.normalize"].docstring == "Keeps totals positive."


def test_calls_and_imports(parse):
    p = parse("elixir", "lib/shop/cart.ex", SOURCE)
    m = "lib.shop.cart.Shop.Cart"
    # the head of the definition is marked, so that it is no call; a call says how many
    # arguments it passes (the piped value counts)
    assert p.calls(f"{m}.add") == [
        "(def) add",
        "Price.total/(?)",
        "normalize/(?)",
        "TaxRules.apply/(?)",
    ]
    assert p.calls(f"{m}.normalize") == ["(def) normalize", "is_number/(?)", "abs/(?)"]
    assert p.imports == [
        Import("Shop", "Item", line=5),
        Import("Shop", "Price", line=5),
        Import("Shop.Tax", "Rules", "TaxRules", line=6),
        Import("Shop.Util", "*", line=7),
        Import("Logger", line=8),
        Import("GenServer", line=9),
    ]


def test_calls_resolve_through_modules_aliases_and_imports(resolved):
    edges = resolved(
        "elixir",
        {
            "lib/shop/price.ex": """
            defmodule Shop.Price do
              def total(cart), do: cart
            end
            """,
            "lib/shop/util.ex": """
            defmodule Shop.Util do
              def round_up(x), do: x
            end
            """,
            "lib/shop/cart.ex": """
            defmodule Shop.Cart do
              alias Shop.Price
              import Shop.Util

              def add(cart) do
                Price.total(cart) |> normalize()
                Shop.Price.total(cart)
                __MODULE__.reset(cart)
                round_up(1)
                Enum.map(cart, & &1)
              end

              def reset(cart), do: cart
              defp normalize(x), do: x
            end
            """,
        },
    )
    c = "lib.shop.cart.Shop.Cart"
    assert edges == {
        (f"{c}.add", "lib.shop.price.Shop.Price.total"): "exact",
        (f"{c}.add", f"{c}.normalize"): "exact",
        (f"{c}.add", f"{c}.reset"): "exact",
        (f"{c}.add", "lib.shop.util.Shop.Util.round_up"): "exact",
    }


def test_a_private_function_of_another_module_takes_no_fallback(resolved):
    """phoenix: ``send_resp(conn, 200, "oops")`` in a test is Plug.Conn's (imported), never
    Phoenix.Controller's ``defp send_resp``; a public ``def`` of a module the caller ``use``s
    may still be the unique guess, one of a module it names nowhere may not (``match _ do``
    under ``use Plug.Router`` is not Phoenix.Router's ``match``)."""
    edges = resolved(
        "elixir",
        {
            "lib/controller.ex": """
            defmodule Shop.Controller do
              def render_json(conn, data), do: send_resp(conn, 200, "json", data)
              defp send_resp(conn, status, type, body), do: {conn, status, type, body}
              def put_view(conn, view), do: {conn, view}
            end
            """,
            "lib/formats.ex": """
            defmodule Shop.Formats do
              def format(conn), do: conn
            end
            """,
            "test/render_test.exs": """
            defmodule Shop.RenderTest do
              import Plug.Conn
              use Shop.Controller
              def check(conn) do
                format(conn)
                send_resp(conn, 200, "oops")
                put_view(conn, View)
              end
            end
            """,
        },
    )
    c = "lib.controller.Shop.Controller"
    assert edges[(f"{c}.render_json", f"{c}.send_resp")] == "exact"
    assert edges[("test.render_test.Shop.RenderTest.check", f"{c}.put_view")] == "unique_name"
    assert ("test.render_test.Shop.RenderTest.check", f"{c}.send_resp") not in edges
    assert (
        "test.render_test.Shop.RenderTest.check",
        "lib.formats.Shop.Formats.format",
    ) not in edges


def test_a_call_reaches_the_function_of_its_arity(resolved):
    """An Elixir function is its name and its arity: ``list(topic)`` is ``list/1``, never
    ``list/2`` beside it; a default argument makes one clause take several numbers, the piped
    value and a ``do`` block are arguments. phoenix: inside ``__using__``'s ``quote``,
    ``untrack(pid, topic, key)`` is the quoted ``untrack/3``, not the quoted ``untrack/2`` it
    is in, and ``list(topic)`` the quoted ``list/1`` (its clauses are one function, named by the
    first), not the module's ``list/2``."""
    edges = resolved(
        "elixir",
        {
            "lib/presence.ex": """
            defmodule Shop.Presence do
              defmacro __using__(_opts) do
                quote do
                  def untrack(%Shop.Socket{} = socket, key) do
                    untrack(socket.pid, socket.topic, key)
                  end

                  def untrack(pid, topic, key), do: {pid, topic, key}

                  def list(%Shop.Socket{topic: topic}), do: list(topic)
                  def list(topic), do: Shop.Presence.list(__MODULE__, topic)
                end
              end

              def list(module, topic), do: fetch(module, topic)
              def fetch(module, topic, opts \\\\ []), do: {module, topic, opts}
              def count(topic), do: topic |> fetch(:all) |> length()
              def each(topic, fun), do: fun.(topic)
              def run(topic) do
                each topic do
                  topic
                end
              end
            end
            """,
        },
    )
    p = "lib.presence.Shop.Presence"
    u = f"{p}.__using__"
    assert edges[(f"{u}.untrack", f"{u}.untrack#2")] == "exact"
    assert (f"{u}.untrack", f"{u}.untrack") not in edges
    assert edges[(f"{u}.list", f"{u}.list")] == "exact"
    assert (f"{u}.list", f"{p}.list") not in edges
    assert edges[(f"{u}.list#2", f"{p}.list")] == "exact"
    assert edges[(f"{p}.list", f"{p}.fetch")] == "exact"  # fetch/2: its default argument
    assert edges[(f"{p}.count", f"{p}.fetch")] == "exact"  # `topic |> fetch(:all)`: fetch/2
    assert edges[(f"{p}.run", f"{p}.each")] == "exact"  # `each topic do`: each/2


def test_a_call_of_another_arity_makes_no_edge(resolved):
    """``Shop.Cart.add(cart)`` when ``Shop.Cart`` defines only ``add/2`` reaches nothing; a
    bare name the module defines with another arity is an import's (here a library's); a nested
    module does not see its outer module's functions."""
    edges = resolved(
        "elixir",
        {
            "lib/cart.ex": """
            defmodule Shop.Cart do
              import Enum
              def add(cart, item), do: [item | cart]
              def total(cart), do: Shop.Cart.add(cart)
              def size(cart), do: count(cart)
              def fill(cart), do: add(cart)
              def count(cart, fun), do: {cart, fun}

              defmodule Line do
                def new(item), do: total(item)
              end
            end
            """,
        },
    )
    c = "lib.cart.Shop.Cart"
    assert (f"{c}.total", f"{c}.add") not in edges
    assert (f"{c}.size", f"{c}.count") not in edges  # Enum.count/1
    assert (f"{c}.fill", f"{c}.add") not in edges
    assert (f"{c}.Line.new", f"{c}.total") not in edges


def test_code_that_is_no_test_never_guesses_a_tests_function(resolved):
    """ecto: ``adapter.transaction(meta, opts, fun)`` in lib/ is whatever adapter the repo was
    given, never the test adapter that is the repository's one ``transaction/3``; a test may
    still reach its support modules' functions."""
    edges = resolved(
        "elixir",
        {
            "lib/ecto/repo/schema.ex": """
            defmodule Ecto.Repo.Schema do
              alias Ecto.TestAdapter
              def insert(adapter, meta, opts), do: adapter.transaction(meta, opts, fn -> 1 end)
            end
            """,
            "test/support/test_repo.exs": """
            defmodule Ecto.TestAdapter do
              def transaction(meta, opts, fun), do: {meta, opts, fun.()}
            end
            """,
            "test/ecto/repo_test.exs": """
            defmodule Ecto.RepoTest do
              alias Ecto.TestAdapter
              def check(adapter), do: adapter.transaction(%{}, [], fn -> 1 end)
            end
            """,
        },
    )
    t = "test.support.test_repo.Ecto.TestAdapter.transaction"
    assert ("lib.ecto.repo.schema.Ecto.Repo.Schema.insert", t) not in edges
    assert edges[("test.ecto.repo_test.Ecto.RepoTest.check", t)] == "unique_name"


def test_a_module_attribute_is_no_call(parse):
    """ecto: ``@primary_key false`` sets an attribute (it bound to ``Ecto.primary_key/1``); what
    an attribute's value calls is still a call."""
    p = parse(
        "elixir",
        "lib/shop/item.ex",
        """
        defmodule Shop.Item do
          @primary_key false
          @derive {Jason.Encoder, only: [:name]}
          @fields compute_fields(:item)
          def fields, do: @fields
        end
        """,
    )
    assert p.calls("lib.shop.item.Shop.Item") == ["compute_fields/(?)"]


def test_import_only_and_except_and_alias_of_module(parse, resolved):
    """``import Ecto.Query, only: [from: 2]`` brings ``from/2`` and nothing else of it (a bare
    ``where`` is no guess onto Ecto.Query's), ``except:`` leaves a function out; ``alias
    __MODULE__.Line`` names the module it is written in."""
    files = {
        "lib/ecto/query.ex": """
        defmodule Ecto.Query do
          def from(expr, kw), do: {expr, kw}
          def where(query, binding, expr), do: {query, binding, expr}
          def limit(query, n), do: {query, n}
        end
        """,
        "lib/shop/cart.ex": """
        defmodule Shop.Cart do
          import Ecto.Query, only: [from: 2]
          alias __MODULE__.Line

          def items(cart) do
            from(cart, select: 1)
            where(cart, [c], c)
            Line.new(cart)
          end

          defmodule Line do
            def new(item), do: item
          end
        end
        """,
        "lib/shop/order.ex": """
        defmodule Shop.Order do
          import Ecto.Query, except: [limit: 2]
          def first(order), do: limit(where(order, [o], o), 1)
        end
        """,
    }
    p = parse("elixir", "lib/shop/cart.ex", files["lib/shop/cart.ex"])
    assert p.imports == [
        Import("Ecto.Query", "from/2", line=2),
        Import("Shop.Cart", "Line", line=3),
    ]
    edges = resolved("elixir", files)
    q, c = "lib.ecto.query.Ecto.Query", "lib.shop.cart.Shop.Cart"
    assert edges[(f"{c}.items", f"{q}.from")] == "exact"
    assert (f"{c}.items", f"{q}.where") not in edges
    assert edges[(f"{c}.items", f"{c}.Line.new")] == "exact"
    o = "lib.shop.order.Shop.Order.first"
    assert edges[(o, f"{q}.where")] == "exact"
    assert (o, f"{q}.limit") not in edges
