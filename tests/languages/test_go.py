from codebot.core.model import Import, Parameter

SOURCE = """
// Package server serves the item API.
package server

import (
	"context"
	"fmt"
	h "net/http"
	_ "net/http/pprof"
	. "strings"
)

import "errors"

var ErrNotFound = errors.New("not found")

// Server handles item requests.
// It is safe for concurrent use.
type Server struct {
	*Base
	log.Logger
	repo  Repository
	addr, name string
}

type (
	// Repository stores items.
	Repository interface {
		io.Closer
		// Save stores an item and returns its id.
		Save(ctx context.Context, item *Item) (int, error)
		Find(id int) *Item
	}
	ID int
)

type Stack[T any] struct{ items []T }

// Handle serves one request.
func (s *Server) Handle(w h.ResponseWriter, r *h.Request) error {
	fmt.Println("handling", r.URL)
	id, err := s.repo.Save(r.Context(), &Item{})
	go func() { s.log.Printf("saved %d", id) }()
	return err
}

func (s Server) String() string { return ToUpper(s.name) }

func (st *Stack[T]) Push(v T) { st.items = append(st.items, v) }

// Split divides a path.
func Split(path, sep string, limit int, rest ...string) (head string, tail []string, err error) {
	parts := Map[string](rest)
	return parts[0], nil, nil
}

func NewServer(addr string) *Server {
	return &Server{addr: addr}
}
"""


def test_definitions_ids_kinds_lines(parse):
    p = parse("go", "pkg/server.go", SOURCE)
    assert p.ids == [
        "pkg.server.ErrNotFound",
        "pkg.server.Server",
        "pkg.server.Repository",
        "pkg.server.Repository.Save",
        "pkg.server.Repository.Find",
        "pkg.server.Stack",
        "pkg.server.Server.Handle",
        "pkg.server.Server.String",
        "pkg.server.Stack.Push",
        "pkg.server.Split",
        "pkg.server.NewServer",
    ]
    server = p["pkg.server.Server"]
    assert (server.kind, server.start_line, server.end_line) == ("struct", 18, 23)
    assert server.docstring == "Server handles item requests.\nIt is safe for concurrent use."
    assert server.bases == ("Base", "log.Logger")
    repo = p["pkg.server.Repository"]
    assert (repo.kind, repo.start_line, repo.end_line) == ("interface", 27, 32)
    assert repo.docstring == "Repository stores items."
    assert repo.bases == ("io.Closer",)
    stack = p["pkg.server.Stack"]
    assert (stack.kind, stack.start_line, stack.end_line) == ("struct", 36, 36)


def test_receivers_make_methods(parse):
    p = parse("go", "pkg/server.go", SOURCE)
    handle = p["pkg.server.Server.Handle"]
    assert (handle.kind, handle.class_name, handle.parent) == ("method", "Server", None)
    assert (handle.start_line, handle.end_line) == (39, 44)
    assert handle.docstring == "Handle serves one request."
    assert handle.signature == "func (s *Server) Handle(w h.ResponseWriter, r *h.Request) error"
    assert handle.parameters == (Parameter("w", "h.ResponseWriter"), Parameter("r", "*h.Request"))
    assert handle.return_type == "error"
    # The goroutine's func literal is not a callee; the calls inside it are Handle's.
    # A receiver's or a parameter's type comes with the call (`languages.receivers`).
    assert p.calls(handle.id) == [
        "fmt.Println",
        "(s: *Server).repo.Save",
        "(r: *h.Request).Context",
        "(s: *Server).log.Printf",
    ]
    string = p["pkg.server.Server.String"]
    assert (string.kind, string.class_name, string.return_type) == ("method", "Server", "string")
    assert p.calls(string.id) == ["ToUpper"]
    push = p["pkg.server.Stack.Push"]  # a generic receiver `*Stack[T]`
    assert (push.kind, push.class_name, push.parameters) == (
        "method",
        "Stack",
        (Parameter("v", "T"),),
    )


def test_interface_methods(parse):
    p = parse("go", "pkg/server.go", SOURCE)
    save = p["pkg.server.Repository.Save"]
    assert (save.kind, save.class_name, save.parent) == (
        "method",
        "Repository",
        "pkg.server.Repository",
    )
    assert save.docstring == "Save stores an item and returns its id."
    assert save.parameters == (Parameter("ctx", "context.Context"), Parameter("item", "*Item"))
    assert save.return_type == "(int, error)"
    assert p["pkg.server.Repository.Find"].docstring is None


def test_parameters_and_multiple_results(parse):
    p = parse("go", "pkg/server.go", SOURCE)
    split = p["pkg.server.Split"]
    assert (split.kind, split.class_name, split.start_line, split.end_line) == (
        "function",
        None,
        51,
        54,
    )
    assert split.docstring == "Split divides a path."
    assert split.parameters == (
        Parameter("path", "string"),
        Parameter("sep", "string"),
        Parameter("limit", "int"),
        Parameter("rest", "...string"),
    )
    assert split.return_type == "(head string, tail []string, err error)"
    assert p.calls(split.id) == ["Map[string]"]
    assert p["pkg.server.NewServer"].return_type == "*Server"
    assert p["pkg.server.NewServer"].docstring is None


def test_imports(parse):
    p = parse("go", "pkg/server.go", SOURCE)
    assert p.imports == [
        Import("context", line=5),
        Import("fmt", line=6),
        Import("net/http", alias="h", line=7),
        Import("net/http/pprof", alias="_", line=8),
        Import("strings", alias=".", line=9),
        Import("errors", line=12),
    ]


def test_package_code_becomes_chunks(parse):
    p = parse("go", "pkg/server.go", SOURCE)
    chunks = [(s.start_line, s.end_line) for s in p.result.symbols if s.kind == "chunk"]
    assert chunks[0][0] == 1
    assert not any(start <= 14 <= end for start, end in chunks)  # var ErrNotFound: a symbol
    assert p["pkg.server.ErrNotFound"].kind == "variable"
    assert not p.result.issues


# --- typed receivers: the type a reader sees at a glance ---------------------------------------

CHI = {
    "chi/mux.go": """
        package chi

        import "bufio"

        type Mux struct{ buf *bufio.Reader }

        func NewRouter() *Mux { return NewMux() }
        func NewMux() *Mux    { return &Mux{} }

        func (mx *Mux) Get(pattern string, h func()) {}
        func (mx *Mux) Route(pattern string) *Mux    { return mx }
        func (mx *Mux) ReadSlice(delim byte) []byte { return nil }
    """,
    "chi/server.go": """
        package chi

        type Server struct{}

        func (s *Server) Serve() {}
    """,
    "example/main.go": """
        package main

        import (
            "bufio"

            "github.com/go-chi/chi/chi"
        )

        func main() {
            r := chi.NewRouter()
            r.Get("/", nil)
            var s chi.Server
            s.Serve()
            m := &chi.Mux{}
            m.Route("/x")
        }

        func line(br *bufio.Reader) []byte {
            return br.ReadSlice('\\n')
        }
    """,
    "example/other.go": """
        package main

        import "github.com/go-chi/chi/chi"

        func other() { chi.NewMux() }
    """,
}


def test_typed_receivers_constructor_var_and_literal(parse, resolved):
    p = parse("go", "example/main.go", CHI["example/main.go"])
    assert p.calls("example.main.main") == [
        "chi.NewRouter",
        "(r = chi.NewRouter()).Get",
        "(s: chi.Server).Serve",
        "(m: chi.Mux).Route",
    ]
    calls = resolved("go", CHI)
    assert calls[("example.main.main", "chi.mux.Mux.Get")] == "exact"  # `r := chi.NewRouter()`
    assert calls[("example.main.main", "chi.server.Server.Serve")] == "exact"  # `var s chi.Server`
    assert calls[("example.main.main", "chi.mux.Mux.Route")] == "exact"  # `m := &chi.Mux{}`


def test_typed_receiver_of_a_library_type_is_external(resolved):
    calls = resolved("go", CHI)
    # `br *bufio.Reader`: the standard library's ReadSlice, not the repository's only one
    assert ("example.main.line", "chi.mux.Mux.ReadSlice") not in calls


# --- package-level names (issue 21) --------------------------------------------------------------

# chi's context.go and mux.go, cut down.
NAMES = """
package chi

// RouteCtxKey is the context.Context key to store the request context.
var RouteCtxKey = &contextKey{"RouteContext"}

const (
	mSTUB methodTyp = 1 << iota
	mCONNECT
)

var (
	methodMap = map[string]methodTyp{}
	mu        sync.Mutex
)

const version = "5"

func NewRouter() *Mux {
	const local = 1
	var mux = NewMux()
	return mux
}
"""


def test_package_names(parse):
    p = parse("go", "context.go", NAMES)
    kinds = {s.id: s.kind for s in p.result.symbols if s.kind != "chunk"}
    assert kinds == {
        "context.RouteCtxKey": "variable",
        "context.mSTUB": "constant",
        "context.mCONNECT": "constant",
        "context.methodMap": "variable",
        "context.mu": "variable",
        "context.version": "constant",
        "context.NewRouter": "function",
    }
    key = p["context.RouteCtxKey"]
    assert key.docstring == "RouteCtxKey is the context.Context key to store the request context."
    assert (key.start_line, key.signature) == (4, 'var RouteCtxKey = &contextKey{"RouteContext"}')
    assert p["context.mSTUB"].signature == "mSTUB methodTyp = 1 << iota"
    # The `const (` and `)` around a group are no chunks of their own.
    chunks = [s.signature for s in p.result.symbols if s.kind == "chunk"]
    assert chunks == ["package chi"]
