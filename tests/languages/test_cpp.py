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
    assert (dtor.kind, dtor.class_name, p.calls(dtor.id)) == ("method", "Pool", ["drain"])
    size = p[f"{pool}.size"]
    assert (size.kind, size.return_type, size.decorators) == ("method", "int", ("nodiscard",))
    eq = p[f"{pool}.operator=="]
    assert (eq.kind, eq.return_type) == ("method", "bool")
    assert eq.parameters == (Parameter("other", "const Pool &"),)
    assert p[f"{pool}.operator bool"].kind == "method"
    # A method of a nested struct belongs to it.
    release = p[f"{pool}.Slot.release"]
    assert (release.kind, release.class_name, release.parent) == ("method", "Slot", f"{pool}.Slot")
    assert p.calls(release.id) == ["owner->put"]
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
        "Pool<Conn>",
        "Registry::instance",
        "Registry::instance().add",
        "pool->configure",
        "std::make_unique<Pool<Conn>>",
        "this->log",
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
