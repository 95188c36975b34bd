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
    assert p.imports == [
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
    ``Text.Pandoc.Sources``, is the repository's."""
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
        ("src.Text.Pandoc.Readers.TWiki.header", "src.Text.Pandoc.Sources.char"): "unique_name"
    }
