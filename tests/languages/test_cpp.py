import textwrap

from codebot.core.model import Import, Parameter

SOURCE = """
#include <memory>
#include <string>
#include "net/socket.hpp"

using namespace std;
using std::string;
namespace fs = std::filesystem;

namespace app::net {
namespace detail {

/// A connection pool.
/// Thread-safe.
template <typename Conn>
class Pool : public Base, private virtual util::Counted<Pool<Conn>> {
public:
    explicit Pool(int size) : size_(size) {}
    ~Pool() override { drain(); }

    [[nodiscard]] virtual int size() const noexcept { return size_; }
    static Pool *create(const std::string &name, int size = 8);
    bool operator==(const Pool &other) const { return size_ == other.size_; }
    operator bool() const { return size_ > 0; }

    struct Slot {
        void release() { owner->put(this); }
    };

private:
    int size_;
};

}  // namespace detail

// Create a pool by name.
template <typename Conn>
Pool<Conn> *Pool<Conn>::create(const std::string &name, int size) {
    auto pool = std::make_unique<Pool<Conn>>(size);
    pool->configure(name);
    this->log();
    Registry::instance().add(name);
    return new Pool<Conn>(size);
}

Pool::~Pool() { drain(); }

void detail::Pool::Slot::release() {}

int add(int a, int b) { return a + b; }
double add(double a, double b) { return a + b; }

const std::string &Server::name() const { return name_; }

enum class Mode : int { Fast, Safe };

struct Point {
    int x, y;
    Point &operator+=(const Point &o) { x += o.x; return *this; }
};

}  // namespace app::net

namespace {
void hidden() {}
}
"""


def test_definitions_ids_kinds_lines(parse):
    p = parse("cpp", "src/pool.cpp", SOURCE)
    assert p.ids == [
        "src.pool.app.net.detail.Pool",
        "src.pool.app.net.detail.Pool.Pool",
        "src.pool.app.net.detail.Pool.~Pool",
        "src.pool.app.net.detail.Pool.size",
        "src.pool.app.net.detail.Pool.operator==",
        "src.pool.app.net.detail.Pool.operator bool",
        "src.pool.app.net.detail.Pool.Slot",
        "src.pool.app.net.detail.Pool.Slot.release",
        "src.pool.app.net.Pool.create",
        "src.pool.app.net.Pool.~Pool",
        "src.pool.app.net.detail.Pool.Slot.release#2",
        "src.pool.app.net.add",
        "src.pool.app.net.add#2",
        "src.pool.app.net.Server.name",
        "src.pool.app.net.Mode",
        "src.pool.app.net.Point",
        "src.pool.app.net.Point.operator+=",
        "src.pool.hidden",
    ]
    pool = p["src.pool.app.net.detail.Pool"]
    # The range and the doc comment include the `template <...>` line.
    assert (pool.kind, pool.start_line, pool.end_line) == ("class", 14, 31)
    assert pool.docstring == "A connection pool.\nThread-safe."
    assert pool.bases == ("Base", "util::Counted<Pool<Conn>>")
    assert pool.signature.startswith("template <typename Conn> class Pool : public Base")
    assert p["src.pool.app.net.Mode"].kind == "enum"
    point = p["src.pool.app.net.Point"]
    assert (point.kind, point.start_line, point.end_line) == ("struct", 56, 59)


def test_inline_methods(parse):
    p = parse("cpp", "src/pool.cpp", SOURCE)
    pool = "src.pool.app.net.detail.Pool"
    ctor = p[f"{pool}.Pool"]
    assert (ctor.kind, ctor.class_name, ctor.parent, ctor.start_line) == (
        "method",
        "Pool",
        pool,
        17,
    )
    assert (ctor.parameters, ctor.return_type) == ((Parameter("size", "int"),), None)
    dtor = p[f"{pool}.~Pool"]
    # A C++ call records how many arguments it passes, for choosing among overloads.
    assert (dtor.kind, dtor.class_name, p.calls(dtor.id)) == ("method", "Pool", ["drain/()"])
    size = p[f"{pool}.size"]
    assert (size.kind, size.return_type, size.decorators) == ("method", "int", ("nodiscard",))
    eq = p[f"{pool}.operator=="]
    assert (eq.kind, eq.return_type) == ("method", "bool")
    assert eq.parameters == (Parameter("other", "const Pool &"),)
    assert p[f"{pool}.operator bool"].kind == "method"
    # A method of a nested struct belongs to it.
    release = p[f"{pool}.Slot.release"]
    assert (release.kind, release.class_name, release.parent) == ("method", "Slot", f"{pool}.Slot")
    assert p.calls(release.id) == ["owner->put/(?)"]
    # A declaration without a body is not a symbol: its out-of-line definition is.
    assert f"{pool}.create" not in p.by_id


def test_out_of_line_methods(parse):
    p = parse("cpp", "src/pool.cpp", SOURCE)
    create = p["src.pool.app.net.Pool.create"]
    assert (create.kind, create.class_name, create.parent) == ("method", "Pool", None)
    assert (create.start_line, create.end_line) == (36, 43)
    assert create.docstring == "Create a pool by name."
    assert create.parameters == (Parameter("name", "const std::string &"), Parameter("size", "int"))
    assert create.return_type == "Pool<Conn> *"
    # Sorted: the engine's order of two calls starting at one byte (`Registry::instance` in
    # `Registry::instance().add`) may vary. `new Pool<Conn>(size)` calls the constructor.
    assert sorted(p.calls(create.id)) == [
        "(pool: Pool<Conn>).configure/(:std::string)",  # `auto pool = std::make_unique<..>`
        "Pool<Conn>/(n)",  # `size`, an `int`
        "Registry::instance().add/(:std::string)",
        "Registry::instance/()",
        "std::make_unique<Pool<Conn>>/(n)",
        "this->log/()",
    ]
    dtor = p["src.pool.app.net.Pool.~Pool"]
    assert (dtor.kind, dtor.class_name, dtor.start_line) == ("method", "Pool", 45)
    # `detail::Pool::Slot::release` names its owners in full; it clashes with the inline one.
    qualified = p["src.pool.app.net.detail.Pool.Slot.release#2"]
    assert (qualified.kind, qualified.class_name, qualified.start_line) == ("method", "Slot", 47)
    name = p["src.pool.app.net.Server.name"]
    assert (name.kind, name.class_name, name.return_type) == (
        "method",
        "Server",
        "const std::string &",
    )
    plus = p["src.pool.app.net.Point.operator+="]
    assert (plus.kind, plus.class_name, plus.return_type) == ("method", "Point", "Point &")


def test_overloads_and_namespaces(parse):
    p = parse("cpp", "src/pool.cpp", SOURCE)
    first, second = p["src.pool.app.net.add"], p["src.pool.app.net.add#2"]
    assert (first.kind, first.class_name, first.start_line) == ("function", None, 49)
    assert first.parameters == (Parameter("a", "int"), Parameter("b", "int"))
    assert (second.start_line, second.return_type) == (50, "double")
    assert second.parameters == (Parameter("a", "double"), Parameter("b", "double"))
    # An anonymous namespace adds nothing to ids.
    assert p["src.pool.hidden"].kind == "function"


def test_default_arguments(parse):
    p = parse(
        "cpp",
        "src/opts.cpp",
        """
        void run(const char *cmd, int retries = 3, bool (*done)(int) = nullptr) {}
        template <typename... Args> void log(Args &&...args) { emit(args...); }
        """,
    )
    run = p["src.opts.run"]
    assert run.parameters == (
        Parameter("cmd", "const char *"),
        Parameter("retries", "int", "3"),
        Parameter("done", "bool (*)(int)", "nullptr"),
    )
    assert p["src.opts.log"].parameters == (Parameter("args", "Args &&..."),)


def test_imports(parse):
    p = parse("cpp", "src/pool.cpp", SOURCE)
    assert p.imports == [
        Import("memory", line=1),
        Import("string", line=2),
        Import("net/socket.hpp", line=3),
        Import("std", "*", line=5),
        Import("std", "string", line=6),
        Import("std::filesystem", alias="fs", line=7),
    ]


# --- constants (issue 21) ------------------------------------------------------------------------

NAMES = """
#define VERSION "1.0"
namespace ns {
constexpr int kDepth = 3;
int counter = 0;
auto add = [](int a, int b) { return a + b; };
}
"""


def test_constants(parse):
    p = parse("cpp", "src/depth.cpp", NAMES)
    kinds = {s.id: s.kind for s in p.result.symbols if s.kind in ("constant", "variable")}
    assert kinds == {
        "src.depth.VERSION": "constant",
        "src.depth.ns.kDepth": "constant",
        "src.depth.ns.counter": "variable",
        "src.depth.ns.add": "variable",
    }


# --- macros the grammar cannot read (issue 21) ----------------------------------------------------

# fmtlib's shape (include/fmt/format.h): a namespace opened by a macro defined in another
# header, attribute-like macros before declarations and after declarators.
MACROS = """
#include "base.h"

FMT_BEGIN_NAMESPACE
namespace detail {

/// Formats an integer.
FMT_CONSTEXPR20
auto format_int(int value) -> int { return value; }

}  // namespace detail

FMT_BEGIN_EXPORT
// Formats `args` according to specifications in `fmt`.
template <typename... T>
FMT_NODISCARD FMT_INLINE auto format(format_string<T...> fmt, T&&... args) -> std::string {
  return vformat(fmt.str, vargs<T...>{{args...}});
}

class FMT_API format_error : public std::runtime_error {
 public:
  int code() const FMT_NOEXCEPT { return code_; }
  static FMT_CONSTEXPR auto make(int c) -> format_error { return format_error(c); }
};
FMT_END_EXPORT
FMT_END_NAMESPACE
"""


def test_macro_namespace_symbols_keep_their_lines(parse):
    p = parse("cpp", "include/fmt/format.h", MACROS)
    # The namespace the macro opens is transparent; `detail` is read (the misparse hid it).
    assert p.ids == [
        "include.fmt.format.detail.format_int",
        "include.fmt.format.format",
        "include.fmt.format.format_error",
        "include.fmt.format.format_error.code",
        "include.fmt.format.format_error.make",
    ]
    lines = {s.name: (s.start_line, s.end_line) for s in p.result.symbols if s.kind != "chunk"}
    source = textwrap.dedent(MACROS).lstrip("\n").splitlines()
    assert lines == {
        "format_int": (8, 8),
        "format": (14, 17),
        "format_error": (19, 23),
        "code": (21, 21),
        "make": (22, 22),
    }
    assert source[7].startswith("auto format_int(")  # the line of the file, not another
    assert source[13:15] == [  # `template <...>` and the declaration: the symbol's first lines
        "template <typename... T>",
        "FMT_NODISCARD FMT_INLINE auto format(format_string<T...> fmt, T&&... args) -> std::string {",
    ]
    fmt = p["include.fmt.format.format"]
    assert fmt.signature.startswith("template <typename... T> FMT_NODISCARD FMT_INLINE auto")
    assert fmt.return_type == "std::string"
    assert fmt.docstring == "Formats `args` according to specifications in `fmt`."
    # A doc comment above a macro's own line stays the definition's.
    assert p["include.fmt.format.detail.format_int"].docstring == "Formats an integer."
    assert p["include.fmt.format.format_error"].bases == ("std::runtime_error",)
    assert p.calls("include.fmt.format.format") == ["vformat/(lv, ?)"]


def test_blank_macros_keeps_every_byte_offset():
    from codebot.languages.cpp import blank_macros

    data = textwrap.dedent(MACROS).lstrip("\n").encode()
    out = blank_macros(data)
    assert len(out) == len(data)
    assert [i for i, b in enumerate(out) if b == 10] == [i for i, b in enumerate(data) if b == 10]
    assert b"FMT_BEGIN_NAMESPACE" not in out and b"FMT_API" not in out
    assert b"/*               */" in out  # FMT_BEGIN_NAMESPACE: a comment of its length


def test_macros_that_are_not_attributes_stay(parse):
    # An ALL_CAPS type (Windows' HANDLE) before a function's name, an ALL_CAPS type of a
    # local, a macro call, and macros in comments, strings and `#define`s are left alone.
    code = """
    #define API_EXPORT FMT_API void
    HANDLE create_thing(int x) { DWORD n; LOG_INFO("FMT_API void x"); return open(x); }
    // FMT_API void in a comment
    """
    from codebot.languages.cpp import blank_macros

    data = textwrap.dedent(code).lstrip("\n").encode()
    assert blank_macros(data) == data
    p = parse("cpp", "src/win.cpp", code)
    fn = p["src.win.create_thing"]
    assert (fn.return_type, fn.start_line) == ("HANDLE", 2)
    assert p.calls(fn.id) == ['LOG_INFO/(")', "open/(n, ~)"]  # (`~`: its own parameters)


# --- receivers: the types of locals, parameters, fields ---------------------------------------------

RECEIVERS = """
struct Widget { void run(); void go() {} };
struct Pool { Widget *make(); };
void f(const Widget &w, Pool *p) {
  Widget a; a.run();
  auto d = Widget(3); d.run();
  auto e = new Widget(4); e->run();
  Widget *g = new Widget; g->go();
  auto h = std::make_unique<Widget>(); h->run();
  std::vector<int> v; v.push_back(1);
  w.run(); p->make();
  for (const Widget &y : ws) { y.go(); }
  for (auto &x : v) { x.go(); }
  auto k = other; k.go();
}
struct S { Widget m_; void run() { m_.go(); this->m_.go(); } };
"""


def test_receiver_types(parse):
    p = parse("cpp", "src/r.cpp", RECEIVERS)
    assert p.calls("src.r.f") == [
        "(a: Widget).run/()",
        "Widget/(1)",
        "(d = Widget()).run/()",
        "Widget/(1)",
        "(e = new Widget()).run/()",
        "Widget/()",  # `new Widget`: no arguments
        "(g: Widget*).go/()",
        "std::make_unique<Widget>/()",
        "(h: Widget).run/()",
        "(v: std::vector<int>).push_back/(1)",
        "(w: const Widget).run/()",  # `const Widget &w`: a const receiver
        "(p: Pool*).make/()",
        "(y: const Widget).go/()",
        "(x: ?).go/()",  # `auto &x` of a range: a local, of a type not written
        "(k: ?).go/()",  # `auto k = other`: likewise (no name guess, and no type `k`)
    ]
    assert p.calls("src.r.S.run") == ["(m_: Widget).go/()", "(this.m_: Widget).go/()"]


def test_resolution_through_types_namespaces_and_std(resolved):
    edges = resolved(
        "cpp",
        {
            "include/fmt/base.h": """
            FMT_BEGIN_NAMESPACE
            class memory_buffer { public: void append(const char *s) {} };
            namespace detail { inline int count(int n) { return n; } }
            FMT_END_NAMESPACE
            """,
            "include/fmt/format.h": """
            #include "base.h"
            FMT_BEGIN_NAMESPACE
            FMT_NODISCARD FMT_INLINE auto format(int n) -> int { return detail::count(n); }
            FMT_END_NAMESPACE
            """,
            "src/use.cc": """
            #include "fmt/format.h"
            namespace std { template <> struct hash<int> {}; }
            void use() {
              fmt::memory_buffer buf;
              buf.append("x");
              fmt::format(1);
              fmt::detail::count(2);
              std::move(buf);
              std::vector<int> v;
              v.size();
            }
            """,
            "src/other.cc": """
            int format(int n) { return n; }
            void call() { boost::format(1); }
            """,
        },
    )
    base, fmt = "include.fmt.base", "include.fmt.format"
    assert edges[("src.use.use", f"{base}.memory_buffer.append")] == "exact"
    assert edges[("src.use.use", f"{fmt}.format")] == "exact"
    assert edges[("src.use.use", f"{base}.detail.count")] == "exact"
    assert edges[(f"{fmt}.format", f"{base}.detail.count")] == "exact"
    assert {d for s, d in edges if s == "src.use.use"} == {
        f"{base}.memory_buffer.append",
        f"{fmt}.format",
        f"{base}.detail.count",
    }
    # A namespace the caller includes nothing of is not stripped: `boost::format` is no
    # `format` of this repository.
    assert not {d for s, d in edges if s == "src.other.call"}


def test_header_language_from_its_code():
    from codebot.languages import language_for_path

    license = b"/*\n * Copyright (c) 2012 - present. A class of errors; see std::error.\n */\n"
    cpp = license + b'#include "base.h"\n\nFMT_BEGIN_NAMESPACE\nnamespace detail {\n}\n'
    assert language_for_path("include/fmt/format.h", cpp) == "cpp"
    assert language_for_path("absl/strings/str_cat.h", b"#pragma once\nstd::string f();\n") == "cpp"
    # C: structs, `extern "C"` for C++ callers, C++ words only in comments.
    c = license + b'#ifdef __cplusplus\nextern "C" {\n#endif\nstruct uv_loop_s {\n  int n;\n};\n'
    assert language_for_path("include/uv.h", c) == "c"


def test_a_constructor_never_calls_itself_and_enum_names(resolved, parse):
    edges = resolved(
        "cpp",
        {
            "src/os.cc": """
            class pipe { public: pipe(); };
            pipe::pipe() { int fds[2]; FMT_POSIX_CALL(pipe(fds)); }
            """
        },
    )
    assert not [e for e in edges if e[0] == "src.os.pipe.pipe"]
    # `enum : ullong {..}` is anonymous (tree-sitter reads `ullong` as its name after an error)
    p = parse("cpp", "src/e.cpp", "enum : ullong { bit = 1 };\nenum class Mode : int { Fast };\n")
    assert p.ids == ["src.e.Mode"]


def test_attribute_macro_after_a_declarator_on_its_own_line(parse):
    p = parse(
        "cpp",
        "absl/container/btree_container.h",
        """
        namespace absl {
        class btree_set_container {
         public:
          std::pair<iterator, bool> insert(const value_type &v)
              ABSL_ATTRIBUTE_LIFETIME_BOUND {
            return this->tree_.insert_unique(v);
          }
          iterator insert(const_iterator hint, const value_type &v)
              ABSL_ATTRIBUTE_LIFETIME_BOUND {
            return this->tree_.insert_hint_unique(hint, v);
          }
        };
        }  // namespace absl
        """,
    )
    ids = "absl.container.btree_container.absl.btree_set_container"
    assert p.ids == [ids, f"{ids}.insert", f"{ids}.insert#2"]
    assert [(s.start_line, s.end_line) for s in p.result.symbols if s.name == "insert"] == [
        (4, 7),
        (8, 11),
    ]


def test_a_template_call_in_a_plain_function_is_not_itself(resolved):
    edges = resolved(
        "cpp",
        {
            "absl/strings/str_replace.cc": """
            namespace absl {
            std::string StrReplaceAll(absl::string_view s, FixedMapping replacements) {
              return StrReplaceAll<FixedMapping>(s, replacements);
            }
            }
            """
        },
    )
    assert not edges


def test_overloads_chosen_by_the_number_of_arguments(resolved, parse):
    code = {
        "absl/crc/crc_cord_state.h": """
        namespace absl {
        struct PrefixCrc {
          PrefixCrc() = default;
          PrefixCrc(size_t length, uint32_t crc) : length(length), crc(crc) {}
        };
        struct HashState {
          static HashState combine(HashState state) { return state; }
          template <typename T, typename... Ts>
          static HashState combine(HashState state, const T &value, const Ts &...values) {
            return state;
          }
          void insert(const int &v) {}
          void insert(int &&v) {}
          void insert(int hint, const int &v) {}
        };
        void use(HashState s) {
          PrefixCrc(42, 7);
          HashState::combine(s, 1, 2);
          HashState::combine(s);
          s.insert(3);
          s.insert(1, 3);
        }
        template <typename... Args> void forward(HashState s, Args &&...args) {
          s.insert(args...);  // the number is not known: as found
        }
        }
        """
    }
    edges = resolved("cpp", code)
    h = "absl.crc.crc_cord_state.absl"
    assert {(d, r) for (s, d), r in edges.items() if s == f"{h}.use"} == {
        (f"{h}.PrefixCrc.PrefixCrc#2", "exact"),
        (f"{h}.HashState.combine#2", "exact"),
        (f"{h}.HashState.combine", "exact"),
        (f"{h}.HashState.insert#2", "exact"),  # a literal is an rvalue: `int &&`
        (f"{h}.HashState.insert#3", "exact"),
    }
    assert {d for (s, d) in edges if s == f"{h}.forward"} == {f"{h}.HashState.insert"}
    p = parse("cpp", "absl/crc/crc_cord_state.h", code["absl/crc/crc_cord_state.h"])
    assert p.calls(f"{h}.forward") == ["(s: HashState).insert"]


def test_no_name_guess_on_a_type_we_cannot_follow(resolved):
    edges = resolved(
        "cpp",
        {
            "absl/container/linked_hash_map.h": """
            namespace absl {
            class linked_hash_map {
              using ListType = std::list<int>;
             public:
              void splice(int pos, linked_hash_map &other) {}
              void extract(int position) {
                ListType extracted;
                extracted.splice(extracted.end(), list_, position);
                other_.splice(1, *this);
              }
              ListType list_;
              linked_hash_map other_;
            };
            }
            """
        },
    )
    m = "absl.container.linked_hash_map.absl.linked_hash_map"
    # `extracted` is a `ListType` (std::list): no edge; `other_` is a linked_hash_map: its splice
    assert {d for (s, d) in edges if s == f"{m}.extract"} == {f"{m}.splice"}


def test_a_local_of_unwritten_type_is_no_type_of_its_name(resolved):
    edges = resolved(
        "cpp",
        {
            "include/fmt/xchar.h": """
            namespace detail {
            struct numpunct { static char thousands_sep() { return ','; } };
            }
            using detail::numpunct;
            void group(const std::locale &loc) {
              auto &numpunct = std::use_facet<std::numpunct<wchar_t>>(loc);
              numpunct.thousands_sep();
            }
            void plain() { numpunct::thousands_sep(); }
            """
        },
    )
    assert {s for (s, d) in edges} == {"include.fmt.xchar.plain"}


def test_overloads_chosen_by_the_arguments_kinds(resolved, parse):
    code = {
        "include/fmt/format.h": """
        namespace fmt {
        class locale_ref {
         public:
          locale_ref() {}
          template <typename Locale, FMT_ENABLE_IF(sizeof(Locale::collate) != 0)>
          locale_ref(const Locale& loc) {}
        };
        template <typename... T> auto format(locale_ref loc, string_view fmt, T&&... args) -> int {
          return 0;
        }
        template <typename... T> auto format(string_view fmt, T&&... args) -> int { return 1; }
        void print(string_view fmt, int n) {}
        void print(std::FILE* f, string_view fmt) {}
        void put(const char32_t* s, std::ostream* os) {}
        void put(char c, std::ostream* os) {}
        void use(std::ostream* os, const char32_t* s) {
          fmt::format("{}", 42);
          print(stderr, "x");
          put(static_cast<const char32_t*>(s), os);
        }
        }
        """
    }
    edges = resolved("cpp", code)
    f = "include.fmt.format.fmt"
    # a string literal is no `locale_ref` (its constructor template is constrained), `stderr`
    # is a `FILE*`, a `const char32_t*` no `char`
    assert {(d, r) for (s, d), r in edges.items() if s == f"{f}.use"} == {
        (f"{f}.format#2", "exact"),
        (f"{f}.print#2", "exact"),
        (f"{f}.put", "exact"),
    }
    p = parse("cpp", "include/fmt/format.h", code["include/fmt/format.h"])
    assert p.calls(f"{f}.use") == [
        'fmt::format/(", 1)',
        'print/(FILE*, ")',
        "put/(=char32_t*, :std::ostream*)",
        "static_cast<const char32_t*>/(:char32_t*)",
    ]


def test_const_and_non_const_members_by_the_receiver(resolved):
    edges = resolved(
        "cpp",
        {
            "absl/container/chunked_queue.h": """
            namespace absl {
            class chunked_queue {
             public:
              int& front() { return *head_; }
              const int& front() const { return *head_; }
              int* data() { return head_; }
              const int* data() const { return head_; }
              int first() const { return front(); }
              int* raw() { return data(); }
             private:
              int* head_;
            };
            struct Holder {
              chunked_queue q_;
              int peek() const { return q_.front(); }
            };
            void use(chunked_queue& q, const chunked_queue& c) {
              q.front();
              c.front();
            }
            }
            """
        },
    )
    q = "absl.container.chunked_queue.absl"
    calls = lambda src: {(d, r) for (s, d), r in edges.items() if s == src}  # noqa: E731
    assert calls(f"{q}.use") == {
        (f"{q}.chunked_queue.front", "exact"),  # a non-const receiver: the non-const member
        (f"{q}.chunked_queue.front#2", "exact"),  # a const one: the const member
    }
    assert calls(f"{q}.chunked_queue.first") == {(f"{q}.chunked_queue.front#2", "exact")}
    assert calls(f"{q}.chunked_queue.raw") == {(f"{q}.chunked_queue.data", "exact")}
    assert calls(f"{q}.Holder.peek") == {(f"{q}.chunked_queue.front#2", "exact")}


def test_an_rvalue_takes_the_rvalue_reference_and_a_name_the_other(resolved):
    edges = resolved(
        "cpp",
        {
            "absl/container/raw_hash_set.h": """
            namespace absl {
            struct Node {};
            struct raw_hash_set {
              void insert(const Node& n) {}
              void insert(Node&& n) {}
              template <typename T> void emplace(T&& v) {}
              void emplace(int& v) {}
            };
            void use(raw_hash_set& s, Node node) {
              s.insert(node);
              s.insert(std::move(node));
              s.emplace(3);
            }
            }
            """
        },
    )
    r = "absl.container.raw_hash_set.absl"
    assert {(d, x) for (s, d), x in edges.items() if s == f"{r}.use"} == {
        (f"{r}.raw_hash_set.insert", "exact"),
        (f"{r}.raw_hash_set.insert#2", "exact"),
        (f"{r}.raw_hash_set.emplace", "exact"),  # `int&` binds no literal; `T&&` anything
    }


def test_sets_no_member_of_fits_and_sets_left_wide_open(resolved):
    edges = resolved(
        "cpp",
        {
            "absl/numeric/int128.h": """
            namespace absl {
            class int128 {
             public:
              int128() = default;
            };
            class MovableOnly {
             public:
              explicit MovableOnly(int x) {}
              MovableOnly(MovableOnly&& other) {}
            };
            struct Set {
              void insert(std::initializer_list<int> init) {}
              void insert(int v) {}
            };
            void Print(char c) {}
            void Print(bool b) {}
            void Print(int n) {}
            void Print(Set s) {}
            void use(Set s, int i, Widget w) {
              int128(i);  // no member takes one argument: no edge
              MovableOnly(4);  // a literal makes no MovableOnly through the move constructor
              s.insert(i);  // an `int` is no initializer_list
              Print(w);  // four members, any of them: no edge (`ambiguous`)
            }
            }
            """
        },
    )
    a = "absl.numeric.int128.absl"
    assert {(d, r) for (s, d), r in edges.items() if s == f"{a}.use"} == {
        (f"{a}.MovableOnly.MovableOnly", "exact"),
        (f"{a}.Set.insert#2", "exact"),
    }


def test_only_a_virtual_method_is_overridden_and_a_narrow_literal_is_no_wide_string(resolved):
    edges = resolved(
        "cpp",
        {
            "include/fmt/base.h": """
            namespace fmt {
            class parse_context {
             public:
              void check_dynamic_spec(int id) {}
              virtual void on_error(const char* m) {}
            };
            class compile_parse_context : public parse_context {
             public:
              void check_dynamic_spec(int id) {}
              void on_error(const char* m) override {}
            };
            auto sprintf(string_view fmt, int n) -> int { return 0; }
            auto sprintf(basic_string_view<wchar_t> fmt, int n) -> int { return 1; }
            void parse(parse_context& ctx) {
              ctx.check_dynamic_spec(1);
              ctx.on_error("x");
              sprintf("%d", 42);
            }
            }
            """
        },
    )
    f = "include.fmt.base.fmt"
    assert {(d, r) for (s, d), r in edges.items() if s == f"{f}.parse"} == {
        (f"{f}.parse_context.check_dynamic_spec", "exact"),  # not virtual: hidden, not overridden
        (f"{f}.parse_context.on_error", "exact"),
        (f"{f}.compile_parse_context.on_error", "override"),
        (f"{f}.sprintf", "exact"),
    }


def test_a_literal_takes_the_member_constrained_to_its_kind(resolved):
    edges = resolved(
        "cpp",
        {
            "absl/time/time.h": """
            namespace absl {
            template <typename T, time_internal::EnableIfIntegral<T> = 0>
            constexpr Duration Seconds(T n) { return Duration(); }
            template <typename T, time_internal::EnableIfFloat<T> = 0>
            Duration Seconds(T n) { return Duration(); }
            template <typename T, std::enable_if_t<!std::is_integral<T>::value, int> = 0>
            int mod(T x) { return 0; }
            template <typename T, std::enable_if_t<std::is_integral<T>::value, int> = 0>
            int mod(T x) { return 1; }
            void use() { Seconds(1); Seconds(2.5); mod(3); }
            }
            """
        },
    )
    t = "absl.time.time.absl"
    assert {(d, r) for (s, d), r in edges.items() if s == f"{t}.use"} == {
        (f"{t}.Seconds", "exact"),
        (f"{t}.Seconds#2", "exact"),
        (f"{t}.mod#2", "exact"),
    }


def test_a_macro_is_the_one_the_callers_includes_define(resolved):
    edges = resolved(
        "cpp",
        {
            "include/fmt/base.h": """
            namespace fmt { namespace detail {
            # define FMT_ASSERT(condition, message) ((condition) ? (void)0 : fail(message))
            } }
            """,
            "include/fmt/format.h": """
            #include "base.h"
            inline int count(int x) { FMT_ASSERT(x != 0, ""); return x; }
            """,
            "test/test-assert.h": """
            #define FMT_ASSERT(condition, message) if (!(condition)) throw assertion_failure(message)
            """,
        },
    )
    assert {d for (s, d) in edges if s == "include.fmt.format.count"} == {
        "include.fmt.base.fmt.detail.FMT_ASSERT"
    }


def test_an_argument_that_is_a_call_has_the_type_it_returns(resolved, parse):
    code = {
        "absl/strings/cordz_test.cc": """
        namespace absl {
        enum class TestCordSize { kSmall, kLarge };
        struct CivilSecond { CivilSecond(int y) {} };
        struct CivilDay { CivilDay(int y) {} };
        size_t Length(TestCordSize size) { return 1; }
        std::string FormatCivilTime(CivilSecond c) { return ""; }
        std::string FormatCivilTime(CivilDay c) { return ""; }
        std::string MakeString(size_t size) { return ""; }
        std::string MakeString(std::string s) { return s; }
        void use() {
          FormatCivilTime(CivilDay(2015));
          MakeString(Length(TestCordSize::kLarge));
          MakeString(std::string("x"));
        }
        }
        """
    }
    edges = resolved("cpp", code)
    a = "absl.strings.cordz_test.absl"
    assert {d for (s, d) in edges if s == f"{a}.use"} == {
        f"{a}.CivilDay.CivilDay",
        f"{a}.FormatCivilTime#2",
        f"{a}.Length",
        f"{a}.MakeString",
        f"{a}.MakeString#2",
    }
    p = parse("cpp", "absl/strings/cordz_test.cc", code["absl/strings/cordz_test.cc"])
    assert p.calls(f"{a}.use")[:2] == ["FormatCivilTime/(@CivilDay)", "CivilDay/(1)"]


def test_a_header_function_takes_no_fewer_arguments_than_it_requires(resolved):
    edges = resolved(
        "cpp",
        {
            "absl/container/internal/hashtable_control_bytes.h": """
            namespace absl {
            inline bool IsEmpty(ctrl_t c) { return c == 0; }
            }
            """,
            "absl/container/flat_hash_set_test.cc": """
            #include "absl/container/internal/hashtable_control_bytes.h"
            namespace absl {
            size_t Estimate(int method) { return 0; }
            void Check(Set s) {
              EXPECT_THAT(s, IsEmpty());  // gmock's matcher, not the header's IsEmpty(c)
              Estimate();  // a source file's definition: its header may give the default
            }
            }
            """,
        },
    )
    assert {d for (s, d) in edges if s == "absl.container.flat_hash_set_test.absl.Check"} == {
        "absl.container.flat_hash_set_test.absl.Estimate"
    }


def test_an_iterator_is_no_count(resolved):
    edges = resolved(
        "cpp",
        {
            "test/gtest/gmock/gmock.h": """
            namespace testing {
            template <typename Iter> Matcher ElementsAreArray(Iter first, Iter last) { return {}; }
            template <typename T> Matcher ElementsAreArray(const T* pointer, size_t count) {
              return {};
            }
            template <typename C> Matcher ElementsAreArray(const C& xs) {
              return ElementsAreArray(xs.begin(), xs.end());
            }
            }
            """
        },
    )
    g = "test.gtest.gmock.gmock.testing"
    assert {d for (s, d) in edges if s == f"{g}.ElementsAreArray#3"} == {f"{g}.ElementsAreArray"}


def test_a_header_and_its_implementation_and_foreign_namespaces():
    from codebot.graph.resolve import resolve
    from codebot.parse.extract import parse_source

    files = {  # (modules as the indexer names a header and its implementation)
        "absl/strings/str_cat.h": """
            namespace absl {
            inline std::string StrCat() { return ""; }
            inline std::string StrCat(const AlphaNum& a) { return ""; }
            }
            """,
        "absl/strings/str_cat.cc": """
            #include "absl/strings/str_cat.h"
            namespace absl {
            std::string StrCat(const AlphaNum& a, const AlphaNum& b) { return ""; }
            }
            """,
        "absl/strings/str_cat_benchmark.cc": """
            #include "absl/strings/str_cat.h"
            namespace absl {
            void DoNotOptimize(int x) {}
            void BM_StrCat(benchmark::State& state) {
              benchmark::DoNotOptimize(absl::StrCat("a", "b"));
              std::numeric_limits<int>::max();
            }
            }
            """,
    }
    parsed = [
        parse_source(p, textwrap.dedent(c).lstrip("\n").encode(), "cpp", module=p.replace("/", "."))
        for p, c in files.items()
    ]
    res = resolve(parsed)
    bm = "absl.strings.str_cat_benchmark.cc.absl.BM_StrCat"
    # the header has no two-argument StrCat: its implementation's; `benchmark::` is a library's
    assert {(e.dst, e.resolution) for e in res.edges if e.src == bm and e.kind == "calls"} == {
        ("absl.strings.str_cat.cc.absl.StrCat", "exact")
    }
    assert res.by_language["cpp"]["external"] == 2


def test_a_literal_that_fits_no_parameter_of_the_one_definition_makes_no_edge(resolved):
    edges = resolved(
        "cpp",
        {
            "absl/strings/charconv_test.cc": """
            namespace absl {
            float ToFloat(absl::string_view s) { return 0; }
            void SetEnabled([[maybe_unused]] bool enabled) {}
            void Test() { ToFloat("1.5"); SetEnabled(true); }
            }
            """,
            "absl/random/internal/generate_real_test.cc": """
            namespace absl {
            void Test2() { ToFloat(0x0000000000000000); }
            }
            """,
        },
    )
    a = "absl.strings.charconv_test.absl"
    assert {(s, d) for (s, d) in edges} == {
        (f"{a}.Test", f"{a}.ToFloat"),
        (f"{a}.Test", f"{a}.SetEnabled"),
    }


def test_constraint_and_constructor_macros_are_blanked(parse):
    code = """
    template <typename To, typename From,
              FMT_ENABLE_IF(sizeof(To) > sizeof(From))>
    inline auto bit_cast(const From& from) -> To { return convert(from); }
    class basic_format_args {
     public:
      template <int N, FMT_ENABLE_IF(N <= 3)>
      constexpr FMT_ALWAYS_INLINE basic_format_args(const store<N>& s) : desc_(N) {}
      FMT_CONSTEXPR FMT_ALWAYS_INLINE basic_format_args(int n) : desc_(n) {}
    };
    inline auto runtime(string_view s) -> runtime_format_string<> { return {{s}}; }
    """
    from codebot.languages.cpp import blank_macros

    data = textwrap.dedent(code).lstrip("\\n").encode()
    out = blank_macros(data)
    assert len(out) == len(data) and out.count(b"\\n") == data.count(b"\\n")
    p = parse("cpp", "include/fmt/base.h", code)
    assert p["include.fmt.base.bit_cast"].signature.startswith(
        "template <typename To, typename From, FMT_ENABLE_IF(sizeof(To) > sizeof(From))>"
    )
    assert p.calls("include.fmt.base.bit_cast") == ["convert/(lv, ~)"]
    assert p["include.fmt.base.basic_format_args.basic_format_args"].kind == "method"
    assert p["include.fmt.base.basic_format_args.basic_format_args#2"].kind == "method"
    assert p["include.fmt.base.runtime"].kind == "function"  # not inside the class


def test_a_member_of_one_of_several_specializations_makes_no_edge(resolved):
    edges = resolved(
        "cpp",
        {
            "include/fmt/chrono.h": """
            namespace fmt {
            template <typename Char> struct formatter<weekday, Char> {
              auto format(weekday wd, format_context& ctx) const -> int { return 0; }
            };
            template <typename Char> struct formatter<std::tm, Char> {
              auto format(const std::tm& tm, format_context& ctx) const -> int { return 1; }
            };
            template <typename Char> struct formatter<sys_time, Char> {
              auto format(sys_time t, format_context& ctx) const -> int {
                return formatter<std::tm, Char>::format(gmtime(t), ctx);
              }
            };
            }
            """
        },
    )
    assert not [d for (s, d) in edges if d.endswith(".format")]


def test_a_value_of_one_of_several_specializations_makes_no_edge(resolved):
    edges = resolved(
        "cpp",
        {
            "include/fmt/ranges.h": """
            namespace fmt {
            template <typename Char> struct formatter<tuple, Char> {
              auto format(const tuple& value, context& ctx) const -> int { return 0; }
            };
            template <typename Char> struct formatter<range, Char> {
              auto format(const range& r, context& ctx) const -> int { return 1; }
            };
            template <typename T, typename Char> struct range_formatter {
              formatter<T, Char> value_formatter_;
              auto format(const T& x, context& ctx) const -> int {
                return value_formatter_.format(x, ctx);
              }
            };
            }
            """
        },
    )
    assert not [s for (s, d) in edges if s.endswith("range_formatter.format")]


def test_a_class_templates_parameter_is_any_type_but_no_forwarding_reference(resolved):
    edges = resolved(
        "cpp",
        {
            "absl/container/chunked_queue.h": """
            namespace absl {
            struct T {};  // (a test's own class of the parameter's name)
            template <typename T, size_t N = 64> class chunked_queue {
             public:
              void push_back(const T& val) {}
              void push_back(T&& val) {}
            };
            void use(chunked_queue<int64_t>& q, int64_t v) {
              q.push_back(1);
            }
            }
            """
        },
    )
    c = "absl.container.chunked_queue.absl"
    assert {(d, r) for (s, d), r in edges.items() if s == f"{c}.use"} == {
        (f"{c}.chunked_queue.push_back#2", "exact")
    }


def test_a_literal_takes_a_parameter_of_its_own_type_first(resolved):
    edges = resolved(
        "cpp",
        {
            "absl/numeric/int128.h": """
            namespace absl {
            class int128 {
             public:
              constexpr int128(int v) : lo_(v) {}
              constexpr int128(unsigned int v) : lo_(v) {}
              constexpr int128(double v) : lo_(v) {}
            };
            void use() { int128(0); int128(2.5); }
            }
            """
        },
    )
    a = "absl.numeric.int128.absl.int128"
    assert {(d, r) for (s, d), r in edges.items() if s == "absl.numeric.int128.absl.use"} == {
        (f"{a}.int128", "exact"),
        (f"{a}.int128#3", "exact"),
    }


def test_a_pointer_to_a_template_parameter_takes_no_value_of_a_class(resolved):
    edges = resolved(
        "cpp",
        {
            "include/fmt/base.h": """
            namespace fmt {
            template <typename Char> class basic_string_view {
             public:
              basic_string_view(const Char* s) {}
              auto starts_with(basic_string_view sv) const -> bool { return true; }
              auto starts_with(const Char* s) const -> bool {
                return starts_with(basic_string_view(s));
              }
            };
            }
            """
        },
    )
    v = "include.fmt.base.fmt.basic_string_view"
    assert {d for (s, d) in edges if s == f"{v}.starts_with#2"} == {
        f"{v}.basic_string_view",
        f"{v}.starts_with",
    }


def test_a_literal_no_member_takes_exactly_among_conversions_makes_no_edge(resolved):
    edges = resolved(
        "cpp",
        {
            "absl/numeric/int128.cc": """
            namespace absl {
            class uint128 {
             public:
              uint128(float v) {}
              uint128(double v) {}
              uint128(long double v) {}
            };
            void use() { uint128(1); uint128(2.5); }
            }
            """
        },
    )
    # `uint128(1)`: all three are conversions, ambiguous in C++: its callee is not among them
    assert {d for (s, d) in edges} == {"absl.numeric.int128.absl.uint128.uint128#2"}


def test_the_sets_of_several_included_headers_are_one_and_a_source_files_function_needs_its_header(
    resolved,
):
    edges = resolved(
        "cpp",
        {
            "include/fmt/format.h": """
            FMT_BEGIN_NAMESPACE
            template <typename... T> auto format(format_string<T...> fmt, T&&... args) -> int {
              return write(fmt);
            }
            FMT_END_NAMESPACE
            """,
            "include/fmt/xchar.h": """
            #include "format.h"
            FMT_BEGIN_NAMESPACE
            template <typename... T> auto format(wformat_string<T...> fmt, T&&... args) -> int {
              return 0;
            }
            template <typename... T>
            auto format(text_style ts, wformat_string<T...> fmt, T&&... args) -> int {
              return 0;
            }
            FMT_END_NAMESPACE
            """,
            "include/fmt/color.h": """
            #include "format.h"
            FMT_BEGIN_NAMESPACE
            class text_style { public: text_style(emphasis em = emphasis()) {} };
            template <typename... T>
            auto format(text_style ts, format_string<T...> fmt, T&&... args) -> int { return 0; }
            FMT_END_NAMESPACE
            """,
            "test/printf-test.cc": """
            #include "fmt/xchar.h"
            #include "fmt/color.h"
            using fmt::format;
            void test(int big_num) { format("%{}$d", big_num); }
            """,
            "test/os-test.cc": """
            void write(file& f, fmt::string_view s) {}
            """,
        },
    )
    assert {d for (s, d) in edges if s == "test.printf-test.test"} == {"include.fmt.format.format"}
    assert not [d for (s, d) in edges if s.startswith("include.fmt.format")]


def test_a_wide_literal_takes_the_wide_string_parameter(resolved, parse):
    code = {
        "include/fmt/xchar.h": """
        namespace fmt {
        template <typename... T> auto format(format_string<T...> fmt, T&&... args) -> int {
          return 0;
        }
        template <typename... T> auto format(wformat_string<T...> fmt, T&&... args) -> int {
          return 1;
        }
        void use() { format(L"{}", 42); format("{}", 42); }
        }
        """
    }
    edges = resolved("cpp", code)
    x = "include.fmt.xchar.fmt"
    assert {(d, r) for (s, d), r in edges.items() if s == f"{x}.use"} == {
        (f"{x}.format", "exact"),
        (f"{x}.format#2", "exact"),
    }
    assert parse("cpp", "include/fmt/xchar.h", code["include/fmt/xchar.h"]).calls(f"{x}.use") == [
        'format/(w", 1)',
        'format/(", 1)',
    ]


def test_a_call_passing_the_callers_own_parameters_is_no_recursion(resolved, parse):
    code = {
        "test/posix-mock-test.cc": """
        namespace test {
        FILE* fdopen(int fildes, const char* mode) { return ::FMT_POSIX(fdopen(fildes, mode)); }
        int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
        void log(const std::wstring& v) { CopyToEncodedBuffer(v); }
        void CopyToEncodedBuffer(absl::string_view str) {}
        void CopyToEncodedBuffer(std::wstring_view str) {}
        }
        """
    }
    edges = resolved("cpp", code)
    t = "test.posix-mock-test.test"
    assert (f"{t}.fdopen", f"{t}.fdopen") not in edges
    assert (f"{t}.fact", f"{t}.fact") in edges
    # a wide string converts to a wide string view only
    assert {d for (s, d) in edges if s == f"{t}.log"} == {f"{t}.CopyToEncodedBuffer#2"}
    p = parse("cpp", "test/posix-mock-test.cc", code["test/posix-mock-test.cc"])
    assert "fdopen/(n, :char*, ~)" in p.calls(f"{t}.fdopen")


def test_an_explicit_specialization_is_called_with_its_own_arguments_only(resolved):
    edges = resolved(
        "cpp",
        {
            "test/fuzzing/fuzzer-common.h": """
            template <class Item> inline Item assign_from_buf(const std::uint8_t* data) {
              return Item();
            }
            template <> inline bool assign_from_buf<bool>(const std::uint8_t* data) {
              return data[0];
            }
            void use(const std::uint8_t* data) {
              assign_from_buf<double>(data);
              assign_from_buf<bool>(data);
            }
            """
        },
    )
    f = "test.fuzzing.fuzzer-common"
    assert {(d, r) for (s, d), r in edges.items() if s == f"{f}.use"} == {
        (f"{f}.assign_from_buf", "exact"),
        (f"{f}.assign_from_buf#2", "exact"),
    }


def test_a_pointers_pointee_is_not_const_in_a_const_method(resolved):
    edges = resolved(
        "cpp",
        {
            "test/gtest/gtest.cc": """
            namespace testing {
            class UnitTestImpl {
             public:
              TestInfo* current_test_info() { return info_; }
              const TestInfo* current_test_info() const { return info_; }
            };
            const TestInfo* UnitTest::running_test_info() const {
              return impl_->current_test_info();
            }
            }
            """
        },
    )
    g = "test.gtest.gtest.testing"
    assert {d for (s, d) in edges if s == f"{g}.UnitTest.running_test_info"} == {
        f"{g}.UnitTestImpl.current_test_info"
    }


def test_a_deleted_function_is_never_called(resolved):
    edges = resolved(
        "cpp",
        {
            "absl/time/internal/cctz/src/time_zone_impl.h": """
            namespace cctz {
            class Impl {
             public:
              Impl(const Impl&) = delete;
              Impl& operator=(const Impl&) = delete;
              static const Impl* UTCImpl() { return new Impl(name()); }
            };
            }
            """
        },
    )
    assert not [d for (s, d) in edges if d.endswith("Impl.Impl")]


def test_numeric_limits_values_and_value_template_arguments(resolved, parse):
    code = {
        "absl/container/internal/layout.h": """
        namespace absl {
        template <size_t N> constexpr size_t Offset() { return N; }
        template <class T> constexpr size_t Offset() { return 0; }
        template <typename T, EnableIfIntegral<T> = 0> Duration Seconds(T n) { return {}; }
        template <typename T, EnableIfFloat<T> = 0> Duration Seconds(T n) { return {}; }
        template <size_t N> size_t Next() {
          Seconds(std::numeric_limits<int64_t>::max());
          return Offset<N - 1>();
        }
        }
        """
    }
    edges = resolved("cpp", code)
    a = "absl.container.internal.layout.absl"
    assert {d for (s, d) in edges if s == f"{a}.Next"} == {f"{a}.Offset", f"{a}.Seconds"}
    p = parse("cpp", "absl/container/internal/layout.h", code["absl/container/internal/layout.h"])
    assert p.calls(f"{a}.Next")[0] == "Seconds/(n)"


def test_a_class_of_a_source_file_is_that_files_own(resolved):
    edges = resolved(
        "cpp",
        {
            "absl/container/internal/raw_hash_set.h": """
            namespace absl {
            template <class Policy> size_t Apply(const Slot& s) { return Policy::apply(s); }
            }
            """,
            "absl/container/internal/raw_hash_set_probe_benchmark.cc": """
            namespace absl {
            struct Policy { static size_t apply(const Slot& s) { return 0; } };
            size_t Bench(const Slot& s) { return Policy::apply(s); }
            }
            """,
        },
    )
    assert {s for (s, d) in edges if d.endswith("Policy.apply")} == {
        "absl.container.internal.raw_hash_set_probe_benchmark.absl.Bench"
    }


def test_an_enumerator_and_a_value_of_the_parameters_own_type(resolved, parse):
    code = {
        "absl/strings/cordz_test.cc": """
        namespace absl {
        enum class TestCordSize { kSmall, kLarge };
        std::string MakeString(size_t size) { return ""; }
        std::string MakeString(TestCordSize size) { return ""; }
        class Cord {
         public:
          Cord(absl::string_view src) {}
          bool EqualsImpl(absl::string_view rhs, size_t n) const { return true; }
          bool EqualsImpl(const Cord& rhs, size_t n) const { return true; }
        };
        bool Equal(const Cord& lhs, absl::string_view rhs) { return lhs.EqualsImpl(rhs, 3); }
        void use() { MakeString(TestCordSize::kLarge); }
        }
        """
    }
    edges = resolved("cpp", code)
    a = "absl.strings.cordz_test.absl"
    assert {d for (s, d) in edges if s == f"{a}.use"} == {f"{a}.MakeString#2"}
    assert {d for (s, d) in edges if s == f"{a}.Equal"} == {f"{a}.Cord.EqualsImpl"}
    p = parse("cpp", "absl/strings/cordz_test.cc", code["absl/strings/cordz_test.cc"])
    assert p.calls(f"{a}.use") == ["MakeString/(%TestCordSize)"]


def test_a_string_literal_takes_const_char_pointer_first_and_a_specialization_its_type(resolved):
    edges = resolved(
        "cpp",
        {
            "absl/base/throw_delegate.cc": """
            namespace absl {
            void ThrowStdLengthError(const std::string& what_arg) {}
            void ThrowStdLengthError(const char* what_arg) {}
            struct CordRepFlat {};
            template <typename T> size_t SizeOf(const T* rep) { return sizeof(T); }
            template <> size_t SizeOf(const CordRepFlat* rep) { return 1; }
            void use(CordRepFlat* flat) {
              ThrowStdLengthError("InlinedVector failed length check");
              SizeOf(flat);
            }
            }
            """
        },
    )
    a = "absl.base.throw_delegate.absl"
    assert {d for (s, d) in edges if s == f"{a}.use"} == {
        f"{a}.ThrowStdLengthError#2",
        f"{a}.SizeOf#2",
    }


def test_an_undecided_overload_set_makes_no_edge(resolved):
    # Of two members the arguments leave undecided, one is the callee and an edge to the
    # other would be wrong: no edge (`ambiguous`), as in Java, Kotlin and C#. Members that
    # differ only in an `enable_if` are two functions too; alternatives of the preprocessor
    # (the same parameters, no constraint) are one function, and each is an edge.
    edges = resolved(
        "cpp",
        {
            "include/fmt/format.h": """
            namespace fmt {
            class bigint {};
            void insert(const std::string& s) {}
            void insert(node_type&& n) {}
            template <typename T, FMT_ENABLE_IF(detail::use_format_as<T>::value)>
            auto to_string(const T& value) -> std::string { return ""; }
            template <typename T, FMT_ENABLE_IF(!detail::use_format_as<T>::value)>
            auto to_string(const T& value) -> std::string { return ""; }
            #ifdef _WIN32
            int get_tid(int flags) { return 1; }
            #else
            int get_tid(int flags) { return 2; }
            #endif
            void use(node v, bigint n, int f) {
              insert(v.take());  // a value the parser cannot type: either member
              to_string(n);  // which constraint `bigint` meets is not read
              get_tid(f);  // one of two alternatives the build compiles
            }
            }
            """
        },
    )
    a = "include.fmt.format.fmt"
    out = {(d, r) for (s, d), r in edges.items() if s == f"{a}.use"}
    assert not any(d.startswith((f"{a}.insert", f"{a}.to_string")) for d, _ in out)
    assert {d for d, _ in out} == {f"{a}.get_tid", f"{a}.get_tid#2"}


def test_an_argument_of_a_written_type_decides_the_set(resolved):
    # A value declared with a type the repository only aliases (`using CivilSecond = ..`), or
    # a temporary of it, takes the member whose parameter is of that very name (two members
    # with one parameter list would be one function); a by-value parameter of the argument's
    # type ties with a template's deduction, and the function wins; a literal takes a
    # parameter of its own type before an alias it converts to (`ullong`).
    edges = resolved(
        "cpp",
        {
            "absl/time/civil_time.h": """
            namespace absl {
            using CivilSecond = time_internal::civil_time<second_tag>;
            using CivilDay = time_internal::civil_time<day_tag>;
            using ullong = unsigned long long;
            std::string FormatCivilTime(CivilSecond c) { return ""; }
            std::string FormatCivilTime(CivilDay c) { return ""; }
            class Cord {
             public:
              template <typename T, EnableIfString<T> = 0>
              Cord(T&& src) {}
              Cord(absl::string_view src) {}
            };
            class format_int {
             public:
              explicit format_int(int value) {}
              explicit format_int(ullong value) {}
            };
            void use(CivilSecond s, absl::string_view v) {
              FormatCivilTime(s);
              FormatCivilTime(absl::CivilDay(2024, 1, 1));
              Cord(v);
              format_int(42);
            }
            }
            """
        },
    )
    a = "absl.time.civil_time.absl"
    assert {(d, r) for (s, d), r in edges.items() if s == f"{a}.use"} == {
        (f"{a}.FormatCivilTime", "exact"),
        (f"{a}.FormatCivilTime#2", "exact"),
        (f"{a}.Cord.Cord#2", "exact"),
        (f"{a}.format_int.format_int", "exact"),
    }


def test_a_deduced_parameter_takes_no_other_class(resolved):
    # `template <typename T> void swap(Vec<T>& a, Vec<T>& b)`: deduction converts nothing, so
    # two `Table`s are no arguments of it (a class derived from `Vec` would be); written
    # template arguments (`swap<int>(..)`) leave conversions open.
    edges = resolved(
        "cpp",
        {
            "absl/container/vec.h": """
            namespace absl {
            template <typename T>
            class Vec {
             public:
              Vec(const Table& t) {}
            };
            class Table {};
            class MyVec : public Vec<int> {};
            template <typename T>
            void swap(Vec<T>& a, Vec<T>& b) {}
            void use(Table t, Table u, MyVec v, MyVec w) {
              swap(t, u);
            }
            void use2(MyVec v, MyVec w) {
              swap(v, w);
            }
            }
            """
        },
    )
    a = "absl.container.vec.absl"
    assert (f"{a}.use", f"{a}.swap") not in edges
    assert (f"{a}.use2", f"{a}.swap") in edges


def test_a_fundamental_type_has_no_constructor(resolved):
    # `new char[n]` and `int(x)` construct no class: never a class's `operator char()`.
    edges = resolved(
        "cpp",
        {
            "absl/numeric/int128.h": """
            namespace absl {
            class uint128 {
             public:
              constexpr explicit operator char() const;
            };
            constexpr uint128::operator char() const { return 0; }
            void use(size_t n, double d) {
              std::unique_ptr<char[]> buf(new char[n]);
              int k = int(d);
            }
            }
            """
        },
    )
    assert not [d for (s, d) in edges if s == "absl.numeric.int128.absl.use"]
