from codebot.core.model import Import, Parameter

SOURCE = """
#include <stdio.h>
#include <stdlib.h>
#include "util/buf.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define VERSION "1.0"

/**
 * A growable byte buffer.
 */
typedef struct {
    char *data;
    size_t len;
} buf_t;

/* A node of a singly linked list. */
struct node {
    struct node *next;
    int (*cmp)(const void *, const void *);
};

typedef int (*handler_t)(int signo);

enum color { RED, GREEN };

static handler_t handlers[4];

int parse_args(int argc, char **argv);

// Parse one record.
// Returns a pointer into the input.
static const char *parse(const char *s, size_t n, int (*cb)(int), ...) {
    buf_t b = make_buf(n);
    b.data = (char *)malloc(MAX(n, 16));
    list->head->cmp(s, b.data);
    (*cb)(1);
    return s;
}

char **split(char *argv[], unsigned long count) {
    return NULL;
}

void (*get_handler(int signo))(int) {
    return handlers[signo];
}

int main(void) {
    printf("%s\\n", parse("x", 1, NULL));
    return 0;
}
"""


def test_definitions_ids_kinds_lines(parse):
    p = parse("c", "src/parse.c", SOURCE)
    assert p.ids == [
        "src.parse.MAX",
        "src.parse.VERSION",
        "src.parse.buf_t",
        "src.parse.node",
        "src.parse.color",
        "src.parse.parse",
        "src.parse.split",
        "src.parse.get_handler",
        "src.parse.main",
    ]
    buf = p["src.parse.buf_t"]
    assert (buf.kind, buf.start_line, buf.end_line) == ("struct", 11, 14)
    assert buf.docstring == "A growable byte buffer."
    node = p["src.parse.node"]
    assert (node.kind, node.start_line, node.end_line, node.docstring) == (
        "struct",
        17,
        20,
        "A node of a singly linked list.",
    )
    assert p["src.parse.color"].kind == "enum"
    macro = p["src.parse.MAX"]
    assert (macro.kind, macro.start_line, macro.end_line) == ("function", 5, 5)
    assert macro.parameters == (Parameter("a"), Parameter("b"))
    assert macro.return_type is None


def test_functions(parse):
    p = parse("c", "src/parse.c", SOURCE)
    fn = p["src.parse.parse"]
    assert (fn.kind, fn.class_name, fn.start_line, fn.end_line) == ("function", None, 32, 38)
    assert fn.docstring == "Parse one record.\nReturns a pointer into the input."
    assert fn.signature == "static const char *parse(const char *s, size_t n, int (*cb)(int), ...)"
    assert fn.parameters == (
        Parameter("s", "const char *"),
        Parameter("n", "size_t"),
        Parameter("cb", "int (*)(int)"),
        Parameter("..."),
    )
    assert fn.return_type == "const char *"
    assert p.calls(fn.id) == ["make_buf", "malloc", "MAX", "list->head->cmp", "(*cb)"]
    split = p["src.parse.split"]
    assert split.parameters == (Parameter("argv", "char *[]"), Parameter("count", "unsigned long"))
    assert split.return_type == "char **"
    assert split.docstring is None
    main = p["src.parse.main"]
    assert (main.parameters, main.return_type) == ((), "int")
    assert p.calls(main.id) == ["printf", "parse"]


def test_function_pointers(parse):
    p = parse("c", "src/parse.c", SOURCE)
    # A function returning a function pointer is found by its own name.
    handler = p["src.parse.get_handler"]
    assert (handler.kind, handler.start_line, handler.end_line) == ("function", 44, 46)
    assert handler.parameters == (Parameter("signo", "int"),)
    # Typedefs and variables of function pointer type, and prototypes, are not symbols.
    assert "src.parse.handler_t" not in p.by_id
    assert "src.parse.parse_args" not in p.by_id
    assert not p.result.issues


def test_includes(parse):
    p = parse("c", "src/parse.c", SOURCE)
    assert p.imports == [
        Import("stdio.h", line=1),
        Import("stdlib.h", line=2),
        Import("util/buf.h", line=3),
    ]


# --- constants and globals (issue 21) ------------------------------------------------------------

NAMES = """
#ifndef BUF_H
#define BUF_H
#define BUF_INIT_SIZE 64
#define SQUARE(x) ((x) * (x))
static const int limit = 5;
int counter = 0;
void f(void) {
#define LOCAL 1
    const int x = 2;
}
#endif
"""


def test_constants_and_globals(parse):
    p = parse("c", "src/buf.c", NAMES)
    kinds = {s.id: s.kind for s in p.result.symbols if s.kind != "chunk"}
    assert kinds == {
        "src.buf.BUF_INIT_SIZE": "constant",  # the header guard has no value: no constant
        "src.buf.SQUARE": "function",
        "src.buf.limit": "constant",
        "src.buf.counter": "variable",
        "src.buf.f": "function",
    }
