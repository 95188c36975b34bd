"""Whether a call is made every time its caller runs, read from real snippets of several
grammars (``languages.conditions``)."""

from __future__ import annotations

import pytest

from codebot.languages.conditions import CallConditions, constructor_names
from codebot.parse.guard import bounded_tree_or_none


def conditions(language: str, data: bytes) -> CallConditions:
    """As impact reads a file: parsed within the bounds indexing keeps."""
    return CallConditions(bounded_tree_or_none(language, data), data)


PYTHON = b"""def f(x, xs):
    a = g() if x else h()
    b = x and k()
    for i in it():
        m()
    try:
        n()
    except E:
        p()
    with q():
        r()
    if s():
        t()
    elif u():
        v()
    else:
        w()
    return [y(c) for c in z(xs)]
"""

JAVASCRIPT = b"""function f(x) {
  if (a()) {
    b();
  } else {
    c();
  }
  const y = x ? d() : e();
  x && g();
  switch (h()) { case 1: i(); break; default: j(); }
  for (const q of k()) { l(); }
  try { m(); } catch (e) { n(); } finally { o(); }
  it("x", () => { p(); });
  const v = x ?? r();
}
"""

GO = b"""package p

func F(x int) {
	if a() {
		b()
	}
	for _, v := range c() {
		d(v)
	}
	switch e() {
	case 1:
		f()
	}
	t.Run("x", func(t *T) { g() })
}
"""

JAVA = b"""class A {
  void f(int x) {
    a();
    if (x > 0) { b(); }
    try { c(); } catch (Exception e) { d(); }
    for (int i : e()) { g(); }
  }
}
"""

RUBY = b"""def f(x)
  a()
  if x
    b()
  end
  c() unless x
  begin
    d()
  rescue StandardError
    e()
  end
end
"""

KOTLIN = b"""fun f(x: Int) {
    a()
    when (x) {
        1 -> b()
        else -> c()
    }
    val y = x ?: d()
}
"""

CASES = [
    ("python", PYTHON, (1, 18), {
        (2, "g"): True, (2, "h"): True, (3, "k"): True, (4, "it"): False, (5, "m"): True,
        (7, "n"): False, (9, "p"): True, (10, "q"): False, (11, "r"): False, (12, "s"): False,
        (13, "t"): True, (14, "u"): True, (15, "v"): True, (17, "w"): True, (18, "y"): True,
        (18, "z"): False,
    }),
    ("javascript", JAVASCRIPT, (1, 14), {
        (2, "a"): False, (3, "b"): True, (5, "c"): True, (7, "d"): True, (7, "e"): True,
        (8, "g"): True, (9, "h"): False, (9, "i"): True, (9, "j"): True, (10, "k"): False,
        (10, "l"): True, (11, "m"): False, (11, "n"): True, (11, "o"): False, (12, "p"): False,
        (13, "r"): True,
    }),
    ("go", GO, (3, 15), {
        (4, "a"): False, (5, "b"): True, (7, "c"): False, (8, "d"): True, (10, "e"): False,
        (12, "f"): True, (14, "g"): False,
    }),
    ("java", JAVA, (2, 7), {
        (3, "a"): False, (4, "b"): True, (5, "c"): False, (5, "d"): True, (6, "e"): False,
        (6, "g"): True,
    }),
    ("ruby", RUBY, (1, 12), {
        (2, "a"): False, (4, "b"): True, (6, "c"): True, (8, "d"): False, (10, "e"): True,
    }),
    ("kotlin", KOTLIN, (1, 8), {(2, "a"): False, (4, "b"): True, (5, "c"): True, (7, "d"): True}),
]  # fmt: skip


@pytest.mark.parametrize(("language", "source", "span", "expected"), CASES, ids=lambda c: c)
def test_calls_under_a_condition_are_told_apart(language, source, span, expected):
    cond = conditions(language, source)
    got = {key: cond.conditional(key[0], (key[1],), span) for key in expected}
    assert got == expected


def test_a_constructor_is_found_by_its_class_name_and_text_is_not_parsed():
    cond = conditions("python", b"def f(x):\n    if x:\n        Cart(x)\n    Cart(1)\n")
    names = constructor_names("__init__", "shop.cart.Cart")
    assert names == ("__init__", "Cart")
    assert cond.conditional(3, names, (1, 4)) and not cond.conditional(4, names, (1, 4))


def test_a_file_over_the_parse_bounds_is_not_parsed_and_nothing_in_it_is_sure():
    """Impact reads repository files again: the same bounds as indexing, and a refused file's
    calls are all conditional (a test through them "may reach"; never a sure claim)."""
    deep = b"def f(x):\n    g(" + b"(" * 20_000 + b")" * 20_000 + b")\n"
    cond = conditions("python", deep)
    assert cond.tree is None
    assert cond.conditional(2, ("g",), (1, 2))
