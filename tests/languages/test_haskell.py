from codebot.core.model import Import, Parameter

SOURCE = """
{-# LANGUAGE OverloadedStrings #-}
module Shop.Cart (Cart, total, Item(..)) where

import qualified Data.Map as M
import Data.Maybe (fromMaybe)
import Shop.Price

-- | A cart of items.
newtype Cart = Cart (M.Map String Int)

-- | An item.
data Item = Book String | Pen
  deriving (Show, Eq)

class Priced a where
  price :: a -> Int

-- | The total of a cart.
-- Zero when empty.
total :: Cart -> Int
total (Cart m) = sum (M.elems m)

count :: [Item] -> Int
count [] = 0
count (_ : xs) = 1 + count xs

-- not a Haddock comment
lookupQty name (Cart m) = fromMaybe 0 (M.lookup name m) + discount name
  where discount _ = 0

instance Priced Item where
  price Pen = 1
  price (Book _) = 10
"""


def test_definitions_ids_kinds_lines(parse):
    p = parse("haskell", "src/Shop/Cart.hs", SOURCE)
    m = "src.Shop.Cart"
    assert p.ids == [
        f"{m}.Cart",
        f"{m}.Item",
        f"{m}.Priced",
        f"{m}.Priced.price",
        f"{m}.total",
        f"{m}.count",
        f"{m}.count#2",  # each equation of a function
        f"{m}.lookupQty",
    ]
    assert p[f"{m}.Cart"].kind == "struct"
    assert p[f"{m}.Priced"].kind == "interface"
    assert p[f"{m}.Priced.price"].kind == "method"
    assert p[f"{m}.Priced"].signature == "class Priced a where"
    assert (p[f"{m}.lookupQty"].start_line, p[f"{m}.lookupQty"].end_line) == (28, 29)


def test_signatures_parameters_and_haddock(parse):
    p = parse("haskell", "src/Shop/Cart.hs", SOURCE)
    m = "src.Shop.Cart"
    assert p[f"{m}.total"].return_type == "Cart -> Int"  # the type signature above
    assert p[f"{m}.count#2"].return_type == "[Item] -> Int"
    assert p[f"{m}.lookupQty"].return_type is None
    assert p[f"{m}.total"].parameters == (Parameter("(Cart m)"),)
    assert p[f"{m}.total"].docstring == "The total of a cart.\nZero when empty."
    assert p[f"{m}.Item"].docstring == "An item."
    assert p[f"{m}.lookupQty"].docstring is None  # a plain comment documents nothing


def test_calls_and_imports(parse):
    p = parse("haskell", "src/Shop/Cart.hs", SOURCE)
    m = "src.Shop.Cart"
    assert p.calls(f"{m}.total") == ["sum", "M.elems"]
    assert p.calls(f"{m}.lookupQty") == ["fromMaybe", "M.lookup", "discount"]
    # the export list first, one entry per name (`Item(..)`: the type and its constructors)
    assert p.imports == [
        Import("", "Cart", line=2),
        Import("", "total", line=2),
        Import("", "Item(..)", line=2),
        Import("Data.Map", alias="M", line=4),
        Import("Data.Maybe", "fromMaybe", line=5),
        Import("Shop.Price", "*", line=6),
    ]


def test_calls_resolve_through_qualified_and_open_imports(resolved):
    edges = resolved(
        "haskell",
        {
            "src/Shop/Price.hs": """
            module Shop.Price where
            discount :: Int -> Int
            discount x = x
            """,
            "src/Shop/Tax.hs": """
            module Shop.Tax where
            rate x = x
            """,
            "src/Shop/Cart.hs": """
            module Shop.Cart where
            import qualified Shop.Tax as T
            import Shop.Price
            import qualified Data.Map as M

            total m = discount (T.rate (M.size m)) + helper m
            helper m = m
            """,
        },
    )
    c = "src.Shop.Cart"
    assert edges == {
        (f"{c}.total", "src.Shop.Price.discount"): "exact",
        (f"{c}.total", "src.Shop.Tax.rate"): "exact",
        (f"{c}.total", f"{c}.helper"): "exact",
    }


def test_a_unique_name_is_in_scope_only_through_the_modules_imports(resolved):
    """pandoc: ``skip`` in ImageSize (which imports ``Data.Binary.Get`` whole) is that library's,
    not Readers.TikiWiki's; ``char`` reached through ``Text.Pandoc.Parsing``, which re-exports
    ``Text.Pandoc.Sources`` (``module Text.Pandoc.Sources`` in its export list), is the
    repository's."""
    edges = resolved(
        "haskell",
        {
            "src/Text/Pandoc/Sources.hs": """
            module Text.Pandoc.Sources (char) where
            char c = c
            """,
            "src/Text/Pandoc/Parsing.hs": """
            module Text.Pandoc.Parsing (module Text.Pandoc.Sources) where
            import Text.Pandoc.Sources
            """,
            "src/Text/Pandoc/Readers/TikiWiki.hs": """
            module Text.Pandoc.Readers.TikiWiki where
            skip parser = parser
            """,
            "src/Text/Pandoc/Readers/TWiki.hs": """
            module Text.Pandoc.Readers.TWiki where
            import Text.Pandoc.Parsing hiding (enclosed)
            header = char '+'
            """,
            "src/Text/Pandoc/ImageSize.hs": """
            module Text.Pandoc.ImageSize where
            import Data.Binary.Get
            jpegSize n = skip n
            """,
        },
    )
    assert edges == {
        ("src.Text.Pandoc.Readers.TWiki.header", "src.Text.Pandoc.Sources.char"): "exact"
    }


def test_imports_and_exports_parsed(parse):
    """Qualified imports bring no plain name; `hiding` lists what an import leaves out; the
    export list names what a module exports (`module Y`: what it imports from Y)."""
    p = parse(
        "haskell",
        "src/Text/Pandoc.hs",
        """
        module Text.Pandoc
          ( module Text.Pandoc.Readers
          , readers
          , PandocMonad(..)
          , Builder(toList, fromList)
          ) where
        import qualified Data.Text
        import qualified Data.Map as M
        import Data.List as L
        import Text.Pandoc.Readers hiding (readHtml, (<+>))
        import Text.Pandoc.Class (PandocMonad(..), report)
        import Data.Default ()
        """,
    )
    assert p.imports == [
        Import("", "module Text.Pandoc.Readers", line=1),
        Import("", "readers", line=1),
        Import("", "PandocMonad(..)", line=1),
        Import("", "Builder", line=1),
        Import("", "toList", line=1),
        Import("", "fromList", line=1),
        Import("Data.Text", alias="Data.Text", line=7),
        Import("Data.Map", alias="M", line=8),
        Import("Data.List", "*", "L", line=9),
        Import("Text.Pandoc.Readers", "*", line=10),
        Import("Text.Pandoc.Readers", "readHtml", "hiding", line=10),
        Import("Text.Pandoc.Readers", "(<+>)", "hiding", line=10),
        Import("Text.Pandoc.Class", "PandocMonad(..)", line=11),
        Import("Text.Pandoc.Class", "report", line=11),
        Import("Data.Default", alias="Data.Default", line=12),
    ]


def test_a_name_is_what_the_imports_bring_in_as_their_modules_export_it(resolved):
    """pandoc: a test's ``toList`` (of a Builder, a library's) reached ``Writers.HTML.toList``
    through ``Text.Pandoc`` -> ``Text.Pandoc.Writers`` -> ``Writers.HTML``, whose export list
    leaves it out: no edge. A module re-exports what its list names, its own or imported
    (``readHtml``), and with ``module Y`` what it imports from Y; an import list, ``hiding`` and
    ``qualified`` decide what a plain name may be; a class's methods come with ``C(..)``."""
    edges = resolved(
        "haskell",
        {
            "src/Text/Pandoc/Writers/HTML.hs": """
            module Text.Pandoc.Writers.HTML (writeHtml) where
            writeHtml doc = toList doc
            toList x = x
            """,
            "src/Text/Pandoc/Readers/HTML.hs": """
            module Text.Pandoc.Readers.HTML where
            readHtml s = s
            htmlTag s = s
            """,
            "src/Text/Pandoc/Class.hs": """
            module Text.Pandoc.Class (PandocMonad(..), report) where
            class Monad m => PandocMonad m where
              lookupEnv :: String -> m (Maybe String)
            report m = m
            """,
            "src/Text/Pandoc/Writers.hs": """
            module Text.Pandoc.Writers (module Text.Pandoc.Writers.HTML, readHtml) where
            import Text.Pandoc.Writers.HTML
            import Text.Pandoc.Readers.HTML (readHtml)
            """,
            "src/Text/Pandoc.hs": """
            module Text.Pandoc (module Text.Pandoc.Writers, module Text.Pandoc.Class) where
            import Text.Pandoc.Writers
            import Text.Pandoc.Class (PandocMonad(..))
            """,
            "test/Tests/Readers/HTML.hs": """
            module Tests.Readers.HTML where
            import Text.Pandoc
            import qualified Text.Pandoc.Readers.HTML as R
            roundTrip b = writeHtml (toList b)
            reading s = readHtml (htmlTag s)
            qualified s = R.htmlTag s
            env = lookupEnv "HOME"
            reporting m = report m
            """,
            "test/Tests/Hiding.hs": """
            module Tests.Hiding where
            import Text.Pandoc.Readers.HTML hiding (htmlTag)
            tagged s = htmlTag (readHtml s)
            """,
        },
    )
    t = "test.Tests.Readers.HTML"
    assert edges[(f"{t}.roundTrip", "src.Text.Pandoc.Writers.HTML.writeHtml")] == "exact"
    assert (f"{t}.roundTrip", "src.Text.Pandoc.Writers.HTML.toList") not in edges
    assert edges[(f"{t}.reading", "src.Text.Pandoc.Readers.HTML.readHtml")] == "exact"
    assert (f"{t}.reading", "src.Text.Pandoc.Readers.HTML.htmlTag") not in edges  # qualified
    assert edges[(f"{t}.qualified", "src.Text.Pandoc.Readers.HTML.htmlTag")] == "exact"
    assert edges[(f"{t}.env", "src.Text.Pandoc.Class.PandocMonad.lookupEnv")] == "exact"
    assert (f"{t}.reporting", "src.Text.Pandoc.Class.report") not in edges  # not imported
    h = "test.Tests.Hiding.tagged"
    assert edges[(h, "src.Text.Pandoc.Readers.HTML.readHtml")] == "exact"
    assert (h, "src.Text.Pandoc.Readers.HTML.htmlTag") not in edges
    w = "src.Text.Pandoc.Writers.HTML"
    assert edges[(f"{w}.writeHtml", f"{w}.toList")] == "exact"  # its own, exported or not


def test_a_module_may_define_a_prelude_name_and_export_a_type_with_its_constructors(resolved):
    """xmonad: StackSet defines its own ``filter`` (its module's calls reach it, a module
    importing StackSet ``hiding (filter)`` reaches the Prelude's); ``W.RationalRect r`` applies
    the constructor of a type exported as ``RationalRect(..)``; ``choose``, which
    XMonad.Layout defines but does not export, is QuickCheck's in a test."""
    edges = resolved(
        "haskell",
        {
            "src/XMonad/StackSet.hs": """
            module XMonad.StackSet (RationalRect(..), filter, delete) where
            import Prelude hiding (filter)
            data RationalRect = RationalRect Rational Rational
            filter p s = s
            delete w s = filter (/= w) s
            """,
            "src/XMonad/Layout.hs": """
            module XMonad.Layout (tile) where
            tile n = n
            choose a b = a
            """,
            "src/XMonad/Operations.hs": """
            module XMonad.Operations where
            import qualified XMonad.StackSet as W
            float w = W.RationalRect 0 w
            """,
            "tests/Utils.hs": """
            module Utils where
            import XMonad.StackSet hiding (filter)
            import XMonad.Layout
            import Test.QuickCheck
            evens xs = filter even xs
            pick = choose (0, 9)
            """,
        },
    )
    s = "src.XMonad.StackSet"
    assert edges[(f"{s}.delete", f"{s}.filter")] == "exact"
    assert edges[("src.XMonad.Operations.float", f"{s}.RationalRect")] == "exact"
    assert ("tests.Utils.evens", f"{s}.filter") not in edges
    assert ("tests.Utils.pick", "src.XMonad.Layout.choose") not in edges
