import textwrap

from codebot.core.model import Import, Parameter
from codebot.graph.resolve import resolve
from codebot.parse.extract import module_id, parse_source

SOURCE = """
//! Item storage.
use std::collections::HashMap;
use std::fmt;
use crate::error::{self, Error, Result as StoreResult};
use super::model::{item::{Item, ItemId}, *};
extern crate serde as sd;

/// An in-memory store.
///
/// Not persistent.
#[derive(Debug, Default)]
#[serde(rename_all = "camelCase")]
pub struct MemoryStore<K> {
    items: HashMap<K, Item>,
}

// Not a doc comment: plain comments count only when there are no doc comments.
/// The store kinds.
pub enum Kind {
    Memory,
    Disk(String),
}

/// Storage of items.
pub trait Store: Send + Sync {
    /// Load one item.
    fn load(&self, id: ItemId) -> StoreResult<Item>;

    fn name(&self) -> String {
        String::from("store")
    }
}

impl<K: Eq> MemoryStore<K> {
    /// Make an empty store.
    pub fn new() -> Self {
        Self { items: HashMap::new() }
    }

    #[inline]
    #[must_use]
    pub async fn get(&mut self, key: &K, (lo, hi): (u32, u32)) -> Option<&Item> {
        let fresh = Self::new();
        self.items.get(key).map(|i| validate(i));
        println!("{:?}", fresh);
        Vec::<u8>::with_capacity(4);
        convert::<K>(key).await
    }
}

impl<K> Store for MemoryStore<K> {
    fn load(&self, id: ItemId) -> StoreResult<Item> {
        self.items.values().find(|i| i.id == id).cloned().ok_or(Error::NotFound)
    }
}

impl fmt::Display for MemoryStore<String> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "store")
    }
}

mod disk {
    pub struct DiskStore;

    impl super::Store for DiskStore {
        fn load(&self, id: ItemId) -> StoreResult<Item> {
            read_item(id)
        }
    }

    pub(crate) mod cache {
        pub fn warm(self: Box<Self>, n: usize) {}
    }
}
"""


def test_definitions_ids_kinds_lines(parse):
    p = parse("rust", "src/store.rs", SOURCE)
    assert p.ids == [
        "src.store.MemoryStore",
        "src.store.Kind",
        "src.store.Store",
        "src.store.Store.load",
        "src.store.Store.name",
        "src.store.MemoryStore.new",
        "src.store.MemoryStore.get",
        "src.store.MemoryStore.load",
        "src.store.MemoryStore.fmt",
        "src.store.disk.DiskStore",
        "src.store.disk.DiskStore.load",
        "src.store.disk.cache.warm",
    ]
    store = p["src.store.MemoryStore"]
    # The symbol starts at the item: attributes and docs above it are siblings, not a wrapper.
    assert (store.kind, store.start_line, store.end_line) == ("struct", 13, 15)
    assert store.docstring == "An in-memory store.\n\nNot persistent."
    assert store.decorators == ("derive(Debug, Default)", 'serde(rename_all = "camelCase")')
    assert store.signature == "pub struct MemoryStore<K>"
    kind = p["src.store.Kind"]
    assert (kind.kind, kind.start_line, kind.end_line) == ("enum", 19, 22)
    assert kind.docstring == "The store kinds."


def test_impl_blocks_own_methods_and_record_traits(parse):
    p = parse("rust", "src/store.rs", SOURCE)
    # `impl Trait for Type` blocks in the same module list the trait among Type's bases.
    assert p["src.store.MemoryStore"].bases == ("Store", "fmt::Display")
    new = p["src.store.MemoryStore.new"]
    assert (new.kind, new.class_name, new.parent) == ("method", "MemoryStore", None)
    assert (new.start_line, new.end_line, new.return_type) == (36, 38, "Self")
    assert new.docstring == "Make an empty store."
    assert new.parameters == ()
    assert p.calls(new.id) == ["HashMap::new"]
    get = p["src.store.MemoryStore.get"]
    assert (get.start_line, get.end_line) == (42, 48)
    assert get.decorators == ("inline", "must_use")
    assert get.docstring is None
    assert get.signature.startswith("pub async fn get(&mut self, key: &K")
    assert get.parameters == (
        Parameter("self", "&mut Self"),
        Parameter("key", "&K"),
        Parameter("(lo, hi)", "(u32, u32)"),
    )
    assert get.return_type == "Option<&Item>"
    # Macro bodies are token trees: `println!` and what it wraps are not calls. (Sorted: the
    # engine's order of two calls starting at one byte, `a.get` in `a.get(k).map`, may vary.)
    # A field's declared type comes with a call on it (`languages.receivers`).
    assert sorted(p.calls(get.id)) == [
        "(self.items: HashMap<K, Item>).get",
        "(self.items: HashMap<K, Item>).get(key).map",
        "Self::new",
        "Vec::<u8>::with_capacity",
        "convert::<K>",
        "validate",
    ]
    load = p["src.store.MemoryStore.load"]
    assert (load.kind, load.class_name) == ("method", "MemoryStore")
    assert "(self.items: HashMap<K, Item>).values" in p.calls(load.id)
    fmt = p["src.store.MemoryStore.fmt"]
    assert fmt.parameters == (Parameter("self", "&Self"), Parameter("f", "&mut fmt::Formatter<'_>"))
    assert fmt.return_type == "fmt::Result"


def test_traits_and_default_methods(parse):
    p = parse("rust", "src/store.rs", SOURCE)
    store = p["src.store.Store"]
    assert (store.kind, store.bases, store.docstring) == (
        "trait",
        ("Send", "Sync"),
        "Storage of items.",
    )
    load = p["src.store.Store.load"]  # required: no body
    assert (load.kind, load.class_name, load.parent) == ("method", "Store", store.id)
    assert (load.start_line, load.end_line, load.docstring) == (27, 27, "Load one item.")
    assert load.return_type == "StoreResult<Item>"
    name = p["src.store.Store.name"]  # provided: a default body
    assert (name.kind, name.start_line, name.end_line) == ("method", 29, 31)
    assert p.calls(name.id) == ["String::from"]


def test_inline_modules(parse):
    p = parse("rust", "src/store.rs", SOURCE)
    disk = p["src.store.disk.DiskStore"]
    assert (disk.kind, disk.bases) == ("struct", ("super::Store",))
    load = p["src.store.disk.DiskStore.load"]
    assert (load.kind, load.class_name) == ("method", "DiskStore")
    assert p.calls(load.id) == ["read_item"]
    warm = p["src.store.disk.cache.warm"]
    assert (warm.kind, warm.class_name, warm.parent) == ("function", None, None)
    assert warm.parameters == (Parameter("self", "Box<Self>"), Parameter("n", "usize"))


def test_imports(parse):
    p = parse("rust", "src/store.rs", SOURCE)
    assert p.imports == [
        Import("std::collections", "HashMap", line=2),
        Import("std", "fmt", line=3),
        Import("crate", "error", line=4),
        Import("crate::error", "Error", line=4),
        Import("crate::error", "Result", "StoreResult", line=4),
        Import("super::model::item", "Item", line=5),
        Import("super::model::item", "ItemId", line=5),
        Import("super::model", "*", line=5),
        Import("serde", alias="sd", line=6),
    ]


# --- typed receivers: the type a reader sees at a glance ---------------------------------------

AXUM = {
    "src/lib.rs": """
        mod body;
        mod routing;
        mod serve;
    """,
    "src/routing.rs": """
        pub struct Router {}

        impl Router {
            pub fn new() -> Self { Router {} }
            pub fn route(self, path: &str) -> Self { self }
            pub fn layer(self) -> Self { self }
        }

        pub struct MethodRouter {}

        impl MethodRouter {
            pub fn route(self, path: &str) -> Self { self }
            pub fn layer(self) -> Self { self }
        }
    """,
    "src/body.rs": """
        pub struct Body {}

        impl Body {
            pub fn chunk_count(&self) -> usize { 0 }
        }
    """,
    "src/serve.rs": """
        use bytes::Bytes;
        use std::sync::Arc;
        use crate::routing::Router;

        pub struct Serve {
            router: Router,
        }

        impl Serve {
            pub fn run(&self) {
                self.router.layer();
            }
        }

        pub fn app() {
            let app = Router::new();
            app.route("/");
            let other: Router = make();
            other.layer();
            let lit = Router {};
            lit.route("/x");
        }

        pub fn body_len(bytes: &Bytes) -> usize {
            bytes.chunk_count()
        }

        pub fn shared(router: Arc<Router>) {
            router.route("/shared");
        }
    """,
}


def test_typed_receivers_let_new_struct_literal_and_fields(parse, resolved):
    p = parse("rust", "src/serve.rs", AXUM["src/serve.rs"])
    assert p.calls("src.serve.app") == [
        "Router::new",
        "(app = Router::new()).route",
        "make",
        "(other: Router).layer",
        "(lit: Router).route",
    ]
    calls = resolved("rust", AXUM)
    router = "src.routing.Router"
    # `let app = Router::new()`, `let x: Router`, `Router {}`: `route`/`layer` are defined twice
    assert calls[("src.serve.app", f"{router}.route")] == "exact"
    assert calls[("src.serve.app", f"{router}.layer")] == "exact"
    assert ("src.serve.app", "src.routing.MethodRouter.route") not in calls
    # `self.router`: the struct's field
    assert calls[("src.serve.Serve.run", f"{router}.layer")] == "exact"
    # `Arc<Router>` derefs to a Router
    assert calls[("src.serve.shared", f"{router}.route")] == "exact"


def test_typed_receiver_of_a_library_type_is_external(resolved):
    # `bytes: &Bytes` (another crate's): not the repository's only `chunk_count`
    assert ("src.serve.body_len", "src.body.Body.chunk_count") not in resolved("rust", AXUM)


# --- constants and statics (issue 21) ------------------------------------------------------------

NAMES = """
/// The most bytes a body may have.
pub const DEFAULT_LIMIT: usize = 2_097_152;
static NAME: &str = "axum";
static mut COUNTER: u32 = 0;

mod inner {
    pub(crate) const DEPTH: u32 = 3;
}

struct Limit;
impl Limit {
    const ID: u32 = 1;
    fn get() -> u32 {
        const LOCAL: u32 = 2;
        LOCAL
    }
}
"""


def test_constants_and_statics(parse):
    p = parse("rust", "src/limit.rs", NAMES)
    kinds = {s.id: s.kind for s in p.result.symbols if s.kind != "chunk"}
    assert kinds == {
        "src.limit.DEFAULT_LIMIT": "constant",
        "src.limit.NAME": "constant",
        "src.limit.COUNTER": "variable",  # `static mut`, whatever its case
        "src.limit.inner.DEPTH": "constant",
        "src.limit.Limit": "struct",
        "src.limit.Limit.ID": "constant",
        "src.limit.Limit.get": "method",
    }
    assert p["src.limit.DEFAULT_LIMIT"].docstring == "The most bytes a body may have."
    assert p["src.limit.Limit.ID"].class_name == "Limit"


# --- paths from the crate root, re-exports, other crates, derives (issue 21, axum) ---------------

WORKSPACE = {
    "axum/src/lib.rs": """
        mod serve;
        pub mod routing;
        pub mod test_helpers;
        pub use self::serve::serve;
    """,
    "axum/src/serve.rs": """
        pub struct Serve {}
        pub fn serve(app: u32) -> Serve { Serve {} }
    """,
    "axum/src/routing/mod.rs": """
        #[derive(Clone, Debug)]
        pub struct Router {}

        #[derive(Debug)]
        pub struct Plain {}

        impl Router {
            pub fn new() -> Self { Router {} }
        }

        pub fn check() {}

        #[cfg(test)]
        mod tests {
            fn local_check() {
                super::check();
            }

            mod deep {
                fn deeper() {
                    super::super::check();
                }
            }
        }

        fn copies(router: Router, plain: Plain) {
            router.clone();
            let again = Router::new();
            again.clone();
            plain.clone();
        }
    """,
    "axum/src/routing/tests/mod.rs": """
        use crate::{routing::Router, test_helpers::*};

        mod nest;
    """,
    "axum/src/routing/tests/nest.rs": """
        use super::*;

        fn nested() {
            let client = TestClient::new();
            Router::new();
        }
    """,
    "axum/src/test_helpers/mod.rs": """
        mod test_client;
        pub use self::test_client::*;
    """,
    "axum/src/test_helpers/test_client.rs": """
        pub struct TestClient {}

        impl TestClient {
            pub fn new() -> Self { TestClient {} }
        }
    """,
    "axum-macros/src/lib.rs": """
        mod attr_parsing;

        fn expand() {
            crate::attr_parsing::parse_attrs();
            attr_parsing::parse_attrs();
        }
    """,
    "axum-macros/src/attr_parsing.rs": """
        pub(crate) fn parse_attrs() {}

        pub fn layer() {}
    """,
    "examples/hello/src/main.rs": """
        fn main() {
            axum::serve(1);
            tracing_subscriber::fmt::layer();
            attr_parsing::layer();
        }
    """,
}


def resolution(files: dict[str, str]):
    parsed = [
        parse_source(p, textwrap.dedent(c).lstrip("\n").encode(), "rust", module=module_id(p))
        for p, c in files.items()
    ]
    return resolve(parsed)


def test_paths_from_the_crate_root_and_super(resolved):
    calls = resolved("rust", WORKSPACE)
    parse_attrs = "axum-macros.src.attr_parsing.parse_attrs"
    assert calls[("axum-macros.src.lib.expand", parse_attrs)] == "exact"  # `crate::a::f()`
    check = "axum.src.routing.mod.check"
    # `super` inside an inline module is the file's module; twice, out of two
    assert calls[("axum.src.routing.mod.tests.local_check", check)] == "exact"
    assert calls[("axum.src.routing.mod.tests.deep.deeper", check)] == "exact"


def test_a_glob_brings_the_parents_glob_imports(resolved):
    # `use super::*` in nest.rs; the parent has `test_helpers::*`, which has `pub use
    # self::test_client::*`
    calls = resolved("rust", WORKSPACE)
    nested = "axum.src.routing.tests.nest.nested"
    assert calls[(nested, "axum.src.test_helpers.test_client.TestClient.new")] == "exact"
    assert calls[(nested, "axum.src.routing.mod.Router.new")] == "exact"


def test_a_call_names_the_function_not_the_module_of_that_name(resolved):
    # `mod serve;` and `pub use self::serve::serve;` in lib.rs: `axum::serve(..)` is the function
    calls = resolved("rust", WORKSPACE)
    assert calls[("examples.hello.src.main.main", "axum.src.serve.serve")] == "exact"


def test_another_crates_path_is_external_but_not_a_module_of_ours():
    res = resolution(WORKSPACE)
    # `tracing_subscriber::fmt::layer()`: no crate nor module of the repository is named so
    # (the repository's only `layer` is not taken); `attr_parsing::layer()` from the example
    # names a module of ours that the example cannot reach: unknown, not external
    assert res.external.get("examples.hello.src.main.main") == 1
    assert res.unresolved.get("examples.hello.src.main.main") == 1
    edges = {(e.src, e.dst) for e in res.edges}
    assert ("examples.hello.src.main.main", "axum-macros.src.attr_parsing.layer") not in edges


def test_a_derived_method_is_external_only_when_derived():
    res = resolution(WORKSPACE)
    # `router.clone()`, `again.clone()`: Router derives Clone; `plain.clone()`: Plain does not
    # (a method we cannot find: unknown, not external)
    assert res.external.get("axum.src.routing.mod.copies") == 2
    assert res.unresolved.get("axum.src.routing.mod.copies") == 1


# tokio (tokio/src/task/blocking.rs, tokio/src/runtime/handle.rs): items inside `cfg_*!` macros,
# whose braces tree-sitter-rust reads as plain tokens.
TOKIO_CFG = """
cfg_rt_multi_thread! {
    /// Runs the provided blocking function on the current thread without
    /// blocking the executor.
    #[track_caller]
    pub fn block_in_place<F, R>(f: F) -> R
    where
        F: FnOnce() -> R,
    {
        crate::runtime::scheduler::block_in_place(f)
    }
}

cfg_rt! {
    pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        crate::runtime::spawn_blocking(f)
    }
}

impl Handle {
    cfg_rt_multi_thread! {
        /// Spawn a new thread and asynchronously await on its result.
        async fn spawn_thread<F>(f: F) -> <F as Future>::Output
        where
            F: Future + Send + 'static,
        {
            let (tx, rx) = crate::sync::oneshot::channel();
            rx.await.unwrap()
        }
    }
}
"""


def test_items_inside_cfg_macros_are_definitions(parse):
    p = parse("rust", "tokio/src/task/blocking.rs", TOKIO_CFG)
    m = "tokio.src.task.blocking"
    assert p.ids == [f"{m}.block_in_place", f"{m}.spawn_blocking", f"{m}.Handle.spawn_thread"]
    bip = p[f"{m}.block_in_place"]
    assert (bip.kind, bip.start_line, bip.end_line) == ("function", 5, 10)
    assert bip.signature.startswith("pub fn block_in_place<F, R>(f: F) -> R")
    assert bip.docstring.startswith("Runs the provided blocking function on the current thread")
    assert p.calls(f"{m}.spawn_blocking") == ["crate::runtime::spawn_blocking"]
    thread = p[f"{m}.Handle.spawn_thread"]
    assert (thread.kind, thread.class_name) == ("method", "Handle")
    # The wrappers stay in the file's chunks: nothing of the file is unsearchable.
    chunks = " ".join(s.signature for s in p.result.symbols if s.kind == "chunk")
    assert "cfg_rt_multi_thread! {" in chunks and "cfg_rt! {" in chunks


# axum-core: `Request`/`Response` are aliases of http's types, which the parser keeps no symbol
# for; the repository's only `extensions`/`headers_mut` are ResponseParts' (a wrapper).
ALIASES = {
    "axum-core/src/extract/mod.rs": """
        pub type Request<T = Body> = http::Request<T>;
    """,
    "axum-core/src/response/into_response_parts.rs": """
        pub struct ResponseParts {
            pub(crate) res: Response,
        }

        impl ResponseParts {
            pub fn headers_mut(&mut self) -> &mut HeaderMap {
                self.res.headers_mut()
            }
            pub fn extensions(&self) -> &Extensions {
                self.res.extensions()
            }
        }

        fn parts(parts: &mut ResponseParts) {
            parts.headers_mut();
        }
    """,
    "axum/src/test_helpers/test_client.rs": """
        pub struct TestClient {
            client: reqwest::Client,
        }

        impl TestClient {
            pub fn post(&self, url: &str) -> RequestBuilder {
                RequestBuilder { builder: self.client.post(url) }
            }
        }
    """,
    "axum/src/extract/matched_path.rs": """
        use crate::extract::Request;

        async fn extract_matched_path<B>(req: Request<B>) -> Request<B> {
            let matched_path = req.extensions().get::<MatchedPath>().unwrap();
            req
        }
    """,
}


def test_a_written_type_we_cannot_follow_gets_no_unique_name_guess():
    res = resolution(ALIASES)
    edges = {(e.src, e.dst): e.resolution for e in res.edges if e.kind == "calls"}
    parts = "axum-core.src.response.into_response_parts.ResponseParts"
    # `req: Request<B>`, an alias of http's Request: not ResponseParts::extensions
    assert not [e for e in edges if e[0].endswith("extract_matched_path")]
    # `self.res: Response` (an alias) and `self.client: reqwest::Client` (another crate's
    # type): the library's methods of the same name, not the wrapper calling itself
    assert not [e for e in edges if e[0].startswith(f"{parts}.") or e[0].endswith("Client.post")]
    assert res.external.get("axum.src.test_helpers.test_client.TestClient.post") == 1
    # a written type we can follow still reaches its method
    module = "axum-core.src.response.into_response_parts"
    assert edges[(f"{module}.parts", f"{parts}.headers_mut")] == "exact"
