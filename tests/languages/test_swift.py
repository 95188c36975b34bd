import textwrap

from codebot.core.model import Import, Parameter
from codebot.graph.resolve import resolve
from codebot.parse.extract import module_id, parse_source

SOURCE = """
import Foundation
@testable import MyApp
import struct Swift.Array

/// Keeps the users of the app in memory.
/// Loads them from a repository.
@MainActor
public final class UserStore: ObservableObject, Identifiable {
    @Published var users: [User] = []
    private let repo: UserRepository

    /// Creates a store.
    init(repo: UserRepository, cache: Cache? = nil) {
        self.repo = repo
        super.init()
    }

    @objc(loadWithID:)
    @discardableResult
    func load(with id: Int, _ force: Bool = false, handlers: (() -> Void)...) async throws -> [User] {
        let fresh = try await repo.fetch(id: id)
        users.append(contentsOf: fresh)
        Logger.shared.info("loaded")
        print(users.count)
        let names = fresh.map { $0.name }.sorted()
        return User.sorted(fresh)
    }

    func load(_ user: User) {
        users.append(user)
    }

    static func == (lhs: UserStore, rhs: UserStore) -> Bool { lhs.users == rhs.users }

    struct Config: Codable {
        var pageSize: Int

        func validate() -> Bool { check(pageSize) }
    }

    deinit {
        cancel()
    }
}

protocol UserRepository: AnyObject, Sendable {
    func fetch(id: Int) async throws -> [User]
    func save(_ user: inout User, notify: @escaping () -> Void)
}

enum Role: String, CaseIterable {
    case admin, member

    var title: String { rawValue.capitalized }

    func can(_ action: Action) -> Bool { self == .admin }
}

extension UserStore: CustomStringConvertible {
    var description: String { "\\(users.count) users" }

    func reset() { users.removeAll() }
}

extension Array where Element == User {
    func names() -> [String] { map { $0.name } }
}

func makeStore<R: UserRepository>(_ repo: R) -> UserStore {
    UserStore(repo: repo)
}

actor Counter {
    func increment() {}
}
"""

PATH = "Sources/App/UserStore.swift"
M = "Sources.App.UserStore"
S = f"{M}.UserStore"


def test_definitions_ids_kinds_lines(parse):
    p = parse("swift", PATH, SOURCE)
    assert p.ids == [
        S,
        f"{S}.init",
        f"{S}.load",
        f"{S}.load#2",
        f"{S}.==",
        f"{S}.Config",
        f"{S}.Config.validate",
        f"{S}.deinit",
        f"{M}.UserRepository",
        f"{M}.UserRepository.fetch",
        f"{M}.UserRepository.save",
        f"{M}.Role",
        f"{M}.Role.admin",  # `case admin, member`: one constant, the line's first name
        f"{M}.Role.can",
        f"{S}.reset",
        f"{M}.Array.names",
        f"{M}.makeStore",
        f"{M}.Counter",
        f"{M}.Counter.increment",
    ]
    kinds = {s.id: s.kind for s in p.result.symbols}
    assert [
        kinds[i] for i in (S, f"{S}.Config", f"{M}.UserRepository", f"{M}.Role", f"{M}.Counter")
    ] == [
        "class",
        "struct",
        "interface",  # a protocol
        "enum",
        "class",  # an actor
    ]
    store = p[S]
    assert (store.start_line, store.end_line) == (7, 44)
    assert store.docstring == "Keeps the users of the app in memory.\nLoads them from a repository."
    assert store.decorators == ("MainActor",)
    assert store.bases == ("ObservableObject", "Identifiable")
    assert (
        store.signature == "@MainActor public final class UserStore: ObservableObject, Identifiable"
    )
    config = p[f"{S}.Config"]
    assert (config.class_name, config.parent, config.bases) == ("UserStore", S, ("Codable",))
    validate = p[f"{S}.Config.validate"]
    assert (validate.kind, validate.class_name, validate.start_line, validate.end_line) == (
        "method",
        "Config",
        38,
        38,
    )
    assert p[f"{M}.UserRepository"].bases == ("AnyObject", "Sendable")
    assert p[f"{M}.Role"].bases == ("String", "CaseIterable")
    admin = p[f"{M}.Role.admin"]
    assert (admin.kind, admin.parent, admin.signature) == (
        "constant",
        f"{M}.Role",
        "case admin, member",
    )
    # a function of `extension UserStore: CustomStringConvertible` carries the conformance
    assert p[f"{S}.reset"].bases == ("CustomStringConvertible",)
    assert p[f"{M}.Array.names"].bases == ()  # `extension Array where ..`: none
    assert p[f"{S}.load"].bases == ()  # a method in the type's own body: none


def test_init_and_async_methods(parse):
    p = parse("swift", PATH, SOURCE)
    init = p[f"{S}.init"]
    assert (init.kind, init.class_name, init.start_line, init.end_line) == (
        "method",
        "UserStore",
        13,
        16,
    )
    assert init.docstring == "Creates a store."
    assert init.parameters == (
        Parameter("repo", "UserRepository"),
        Parameter("cache", "Cache?", "nil"),
    )
    assert init.return_type is None
    assert init.signature == "init(repo: UserRepository, cache: Cache? = nil)"
    load = p[f"{S}.load"]
    assert (load.start_line, load.end_line) == (18, 27)
    assert load.decorators == ("objc(loadWithID:)", "discardableResult")
    # A parameter is named as declared: argument label, then internal name.
    assert load.parameters == (
        Parameter("with id", "Int"),
        Parameter("_ force", "Bool", "false"),
        Parameter("handlers", "(() -> Void)..."),
    )
    assert load.return_type == "[User]"
    assert load.signature.endswith(
        "func load(with id: Int, _ force: Bool = false, handlers: (() -> Void)...) async throws -> [User]"
    )
    assert p[f"{S}.load#2"].parameters == (Parameter("_ user", "User"),)
    eq = p[f"{S}.=="]
    assert (eq.name, eq.return_type) == ("==", "Bool")
    assert eq.parameters == (Parameter("lhs", "UserStore"), Parameter("rhs", "UserStore"))
    deinit = p[f"{S}.deinit"]
    assert (deinit.kind, deinit.start_line, deinit.end_line) == ("method", 41, 43)
    fetch = p[f"{M}.UserRepository.fetch"]
    assert (fetch.kind, fetch.class_name, fetch.return_type) == (
        "method",
        "UserRepository",
        "[User]",
    )
    assert fetch.signature == "func fetch(id: Int) async throws -> [User]"
    save = p[f"{M}.UserRepository.save"]
    assert save.parameters == (
        Parameter("_ user", "inout User"),
        Parameter("notify", "@escaping () -> Void"),
    )
    assert save.return_type is None
    make = p[f"{M}.makeStore"]
    assert (make.kind, make.parameters, make.return_type) == (
        "function",
        (Parameter("_ repo", "R"),),
        "UserStore",
    )


def test_extensions_add_methods_to_their_type(parse):
    p = parse("swift", PATH, SOURCE)
    reset = p[f"{S}.reset"]
    assert (reset.kind, reset.class_name, reset.parent, reset.start_line) == (
        "method",
        "UserStore",
        None,
        62,
    )
    names = p[f"{M}.Array.names"]
    assert (names.kind, names.class_name, names.return_type) == ("method", "Array", "[String]")


def test_calls(parse):
    p = parse("swift", PATH, SOURCE)
    assert p.calls(f"{S}.init") == ["super.init/()"]
    # Callees as written; on a receiver that is a chain of names and calls, that chain with the
    # arguments dropped (`fresh.map().sorted`); on another expression, the member name. After `/`, the
    # argument labels (`_` none, `{}` a trailing closure; `:T` a literal's or a declared name's
    # type): what tells overloads apart.
    # a receiver of a declared type says so (the stored properties `repo` and `users`)
    assert p.calls(f"{S}.load") == [
        "(repo: UserRepository).fetch/(id:Int, ~await)",  # under `await`
        "(users: [User]).append/(contentsOf)",
        "Logger.shared.info/(_:String)",
        "print/(_)",
        "fresh.map/({})",
        "fresh.map().sorted/()",
        "User.sorted/(_)",
    ]
    assert [c.line for c in p[f"{S}.load"].calls] == [21, 22, 23, 24, 25, 25, 26]
    assert p.calls(f"{S}.Config.validate") == ["check/(_:Int)"]
    assert p.calls(f"{S}.deinit") == ["cancel/()"]
    assert p.calls(f"{S}.reset") == ["users.removeAll/()"]
    assert p.calls(f"{M}.makeStore") == ["UserStore/(repo:R)"]  # an initializer
    assert p.calls(f"{M}.Array.names") == ["map/({})"]


def test_imports(parse):
    p = parse("swift", PATH, SOURCE)
    assert p.imports == [
        Import("Foundation", line=1),
        Import("MyApp", line=2),
        Import("Swift", "Array", line=3),
    ]


def test_nested_extension_and_operators(parse):
    p = parse(
        "swift",
        "Sources/Geometry/Vector.swift",
        """
        extension Geometry.Vector {
            static func + (a: Self, b: Self) -> Self { Self(x: a.x + b.x) }
            static func <+> (a: Self, b: Self) -> Self { a }
            subscript(index: Int) -> Double { index == 0 ? x : y }
        }
        """,
    )
    V = "Sources.Geometry.Vector.Geometry.Vector"
    assert p.ids == [f"{V}.+", f"{V}.<+>", f"{V}.subscript"]
    assert {p[i].class_name for i in p.ids} == {"Vector"}
    sub = p[f"{V}.subscript"]
    assert (sub.parameters, sub.return_type, sub.signature) == (
        (Parameter("index", "Int"),),
        "Double",
        "subscript(index: Int) -> Double",
    )
    assert p.calls(f"{V}.+") == ["Self/(x)"]


def test_calls_inside_operator_expressions(parse):
    # The grammar binds `*`, `+` and prefix `!`/`-` tighter than a call's arguments (the callee
    # of `square(radius)` is `Double.pi * square`): the name on the operator's right is the call.
    p = parse(
        "swift",
        "Sources/Geometry/Circle.swift",
        """
        struct Circle {
            let radius: Double
            func area() -> Double {
                return Double.pi * square(radius)
            }
            func ring(inner: Circle) -> Double {
                return area() - inner.area() + 2 * self.border(width: 1)
            }
            func isEmpty() -> Bool { return !isPositive(radius) || -offset(radius) > 0 }
        }
        """,
    )
    C = "Sources.Geometry.Circle.Circle"
    assert p.calls(f"{C}.area") == ["square/(_:Double)"]
    # `a - inner.area()` parses as `(a - inner).area`: the member name alone, as on any
    # receiver that is an expression
    assert p.calls(f"{C}.ring") == ["area/()", "area/()", "border/(width:Int)"]
    assert p.calls(f"{C}.isEmpty") == ["isPositive/(_:Double)", "offset/(_:Double)"]


# --- module-level names (issue 21) ---------------------------------------------------------------

NAMES = """
import Foundation
let maxSize = 10
var counter = 0
public var DEFAULT_NAME = "x"
struct Session {
    static let shared = Session()
    let timeout = 1
    func f() { let local = 1 }
}
"""


def test_module_names(parse):
    p = parse("swift", "Sources/Session.swift", NAMES)
    m = "Sources.Session"
    kinds = {s.id: s.kind for s in p.result.symbols if s.kind in ("constant", "variable")}
    assert kinds == {
        f"{m}.maxSize": "constant",  # `let`: Swift's constant
        f"{m}.counter": "variable",
        f"{m}.DEFAULT_NAME": "constant",
        f"{m}.Session.shared": "constant",
    }


# --- typed receivers, library types (issue 21, alamofire) ----------------------------------------

LIBRARY = {
    "Source/Session.swift": """
        import Foundation

        open class Session {
            let queue: DispatchQueue
            let store = Store()

            init(queue: DispatchQueue) {
                self.queue = queue
            }

            func request() {
                store.save()
                self.store.save()
                queue.async { }
                queue.after()
            }
        }

        final class Store {
            func save() {}
            func fulfill() {}
        }

        final class Archive {
            func save() {}
        }

        extension String {
            func slug() -> String { self }
        }

        extension DispatchQueue {
            func after() {}
        }

        extension URLRequest {
            init(path: String) { self.init(url: URL(string: path)!) }
        }

        func boundary() -> String {
            let names: [String] = []
            names.append("x")
            let request = URLRequest(path: "/")
            return String(format: "%08x", 1)
        }
    """,
    "Tests/SessionTests.swift": """
        import XCTest

        final class SessionTests: XCTestCase {
            func testRequest() {
                let done = expectation(description: "done")
                let session = Session(queue: .main)
                session.request()
                done.fulfill()
            }
        }
    """,
}


def library_resolution():
    parsed = [
        parse_source(p, textwrap.dedent(c).lstrip("\n").encode(), "swift", module=module_id(p))
        for p, c in LIBRARY.items()
    ]
    res = resolve(parsed)
    return res, {(e.src, e.dst): e.resolution for e in res.edges if e.kind == "calls"}


def test_typed_receivers_resolve_through_their_type():
    _, calls = library_resolution()
    request = "Source.Session.Session.request"
    # `let store = Store()` (a stored property) and `self.store`: Store's save, not Archive's
    assert calls[(request, "Source.Session.Store.save")] == "exact"
    assert (request, "Source.Session.Archive.save") not in calls
    test = "Tests.SessionTests.SessionTests.testRequest"
    assert calls[(test, "Source.Session.Session.request")] == "exact"  # `let session = Session()`


def test_a_library_value_is_external_unless_the_repository_extends_its_type():
    res, calls = library_resolution()
    test = "Tests.SessionTests.SessionTests.testRequest"
    # `expectation(description:)` is XCTestCase's: `done.fulfill()` is XCTest's, never the
    # repository's only `fulfill`
    assert (test, "Source.Session.Store.fulfill") not in calls
    assert res.external[test] == 2  # expectation, fulfill
    request = "Source.Session.Session.request"
    # `queue: DispatchQueue`: `async` is the library's; `after` is the repository's extension
    # method, which an external verdict must not hide
    assert res.external[request] == 1
    assert calls[(request, "Source.Session.DispatchQueue.after")] == "unique_name"


def test_calling_an_extended_library_type_is_its_initializer():
    res, calls = library_resolution()
    # `String(format:)` where the repository has `extension String`: the library's
    # initializer; `URLRequest(path:)` where an extension adds `init(path:)`: that one (its
    # label fits no other here); `names.append` on `[String]`: the library's
    assert res.external["Source.Session.boundary"] == 2
    assert "Source.Session.boundary" not in res.unresolved
    assert calls[("Source.Session.boundary", "Source.Session.URLRequest.init")] == "exact"


OVERLOADS = {
    "Source/Session.swift": """
        open class Session {
            public init(session: URLSession, rootQueue: DispatchQueue) {}

            public convenience init(configuration: Configuration = .default,
                                    rootQueue: DispatchQueue = .main,
                                    startRequestsImmediately: Bool = true) {
                self.init(session: URLSession(configuration: configuration), rootQueue: rootQueue)
            }

            func request(_ url: String, method: String = "GET") {}
            func request(_ url: String, interceptor: Interceptor?) {}
            func write(_ data: Data, to stream: Stream) {}
            func write(_ text: String, to stream: Stream) {}
            func stream(_ url: String, handler: @escaping (Int) -> Void) {}
            func upload(_ data: Data, to url: String, modifier: RequestModifier? = nil) {}
            func upload(_ file: URL, with url: String) {}
            func fetch(_ convertible: any URLConvertible) {}
            func encode(_ value: any Encodable) -> String { "" }
            func encode(_ value: any Encodable) -> Data { Data() }
            func validate<S: Sequence>(contentType types: @autoclosure () -> S) {}
            func validate(_ validation: @escaping (Int) -> Bool) {}
        }

        public protocol URLConvertible {
            func asURL() -> String
        }

        extension String: URLConvertible {
            public func asURL() -> String { self }
        }

        struct Endpoint {
            static let `default` = Endpoint()
        }

        extension Session {
            func fetch(_ endpoint: Endpoint) {}
            func load(_ endpoint: Endpoint) {}
            func load(_ url: any URLConvertible) {}
            func log(_ items: String..., separator: String = " ") {}
        }
    """,
    "Tests/SessionTests.swift": """
        final class SessionTests {
            func testInit() {
                let a = Session()
                let b = Session(startRequestsImmediately: false)
                let c = Session(session: .shared, rootQueue: .main)
            }

            func testFirst() async {
                func fulfill() {}
                fulfill()
            }

            func testSecond() async {
                func fulfill() {}
                fulfill()
            }

            func testRequest(session: Session) {
                session.request("/")
                session.request("/", interceptor: nil)
                session.write(data, to: stream)
                session.stream("/") { value in }
                session.upload(data, to: "/") { $0.timeout = 1 }
                session.fetch(.default)
                let address = "https://example.com"
                session.load(address)
                let text: String = session.encode(1)
                session.validate { code in true }
                session.log("a", "b", "c")
            }
        }
    """,
}


def test_overloads_are_told_apart_by_argument_labels(resolved):
    calls = resolved("swift", OVERLOADS)
    session = "Source.Session.Session"
    init = "Tests.SessionTests.SessionTests.testInit"
    # `Session()` and `Session(startRequestsImmediately:)`: the convenience init, whose
    # parameters all have defaults; `Session(session:rootQueue:)`: the designated one
    assert calls[(init, f"{session}.init#2")] == "exact"
    assert calls[(init, f"{session}.init")] == "exact"
    assert calls[(f"{session}.init#2", f"{session}.init")] == "exact"  # `self.init(session:)`
    test = "Tests.SessionTests.SessionTests.testRequest"
    # `request("/")` fits only the first (`method` has a default, `interceptor` not)
    assert calls[(test, f"{session}.request")] == "exact"
    assert calls[(test, f"{session}.request#2")] == "exact"  # `request(_:interceptor:)`
    # `write(_:to:)` twice, by type: labels cannot tell; both, marked so
    assert calls[(test, f"{session}.write")] == "overload"
    assert calls[(test, f"{session}.write#2")] == "overload"
    assert calls[(test, f"{session}.stream")] == "exact"  # a trailing closure
    # a trailing closure for a last parameter of a type alias (`RequestModifier`)
    assert calls[(test, f"{session}.upload")] == "exact"
    assert (test, f"{session}.upload#2") not in calls
    # `.default` as the argument: not `any URLConvertible` (a protocol without that member),
    # so the extension's `fetch(_: Endpoint)`
    assert calls[(test, f"{session}.fetch#2")] == "exact"
    assert (test, f"{session}.fetch") not in calls
    # `load(address)`, address a String: not `load(_: Endpoint)` (a struct a String is not)
    assert calls[(test, f"{session}.load#2")] == "exact"
    assert (test, f"{session}.load") not in calls
    # `encode(_:)` -> String and -> Data: the arguments cannot tell; no edge, not both
    assert (test, f"{session}.encode") not in calls
    assert (test, f"{session}.encode#2") not in calls
    # a trailing closure never fills an `@autoclosure` parameter
    assert calls[(test, f"{session}.validate#2")] == "exact"
    assert (test, f"{session}.validate") not in calls
    assert calls[(test, f"{session}.log")] == "exact"  # variadic
    # a function local to another is no overload of one local to a third
    tests = "Tests.SessionTests.SessionTests"
    assert calls[(f"{tests}.testFirst", f"{tests}.testFirst.fulfill")] == "exact"
    assert (f"{tests}.testFirst", f"{tests}.testSecond.fulfill") not in calls
    assert calls[(f"{tests}.testSecond", f"{tests}.testSecond.fulfill")] == "exact"


def test_arguments_that_fit_no_overload_make_no_edge():
    # `request(path:)` fits neither `request`; `"s".write(to:)` (a String's, the receiver
    # dropped as a literal's) is not the repository's `write(_:to:)`: no edge, not a guess
    labels = {"Tests/T.swift": 'func t(session: Session) { session.request(path: "/") }'}
    parsed = [
        parse_source(p, textwrap.dedent(c).encode(), "swift", module=module_id(p))
        for p, c in {**OVERLOADS, **labels}.items()
    ]
    edges = {(e.src, e.dst): e.resolution for e in resolve(parsed).edges if e.kind == "calls"}
    assert ("Tests.T.t", "Source.Session.Session.request") not in edges
    assert ("Tests.T.t", "Source.Session.Session.request#2") not in edges


# --- conformances, enum cases, chains, contexts, visibility (issue 21, round 2) ------------------

ROUTING = {
    # vapor's shape: routing lives in a protocol extension; `Application` adopts the protocol in
    # an extension in another file
    "Sources/Vapor/Application.swift": """
        public final class Application: Sendable {
            public init() {}
            public func shutdown() {}
        }
    """,
    "Sources/Vapor/Routing/RoutesBuilder.swift": """
        public protocol RoutesBuilder {
            func add(_ route: Route)
        }
        extension RoutesBuilder {
            @discardableResult
            public func get<R>(_ path: PathComponent..., use closure: @escaping (Request) throws -> R) -> Route {
                self.on(.GET, path, use: closure)
            }
            @discardableResult
            public func get<R>(_ path: PathComponent..., use closure: @escaping (Request) async throws -> R) -> Route {
                self.on(.GET, path, use: closure)
            }
            public func grouped(_ path: PathComponent...) -> RoutesBuilder { self }
        }
    """,
    "Sources/Vapor/Routing/Routes.swift": """
        extension Application: RoutesBuilder {
            public func add(_ route: Route) {}
        }
        public final class Router {
            public init() {}
        }
    """,
    "Sources/App/routes.swift": """
        import Vapor
        func routes(_ app: Application, router: Router) throws {
            app.get("hello") { req in "Hello" }
            app.get("a", "b") { req in try await req.body() }
            router.get("hello") { req in "Hello" }
        }
    """,
}


def test_a_conformance_declared_on_an_extension_reaches_the_protocol_extension(resolved):
    calls = resolved("swift", ROUTING)
    routes = "Sources.App.routes.routes"
    get = "Sources.Vapor.Routing.RoutesBuilder.RoutesBuilder.get"
    # `extension Application: RoutesBuilder` makes RoutesBuilder's extension methods
    # Application's: a closure without `await` takes the synchronous `get`, one with `await`
    # the async one
    assert calls[(routes, get)] == "exact"
    assert calls[(routes, f"{get}#2")] == "exact"
    # `Router` adopts nothing: its `get` is not RoutesBuilder's (no edge, no guess)
    assert sum(1 for src, _ in calls if src == routes) == 2


def test_the_extension_conformance_is_recorded_on_its_functions(parse):
    p = parse(
        "swift", "Sources/Vapor/Routing/Routes.swift", ROUTING["Sources/Vapor/Routing/Routes.swift"]
    )
    assert p["Sources.Vapor.Routing.Routes.Application.add"].bases == ("RoutesBuilder",)
    assert p["Sources.Vapor.Routing.Routes.Router"].bases == ()


ENDPOINTS = {
    # alamofire's test helpers: an enum's case and a static function share a name
    "Tests/TestHelpers.swift": """
        struct Endpoint {
            enum Path {
                case redirect(count: Int)
                case status(Int)
                case get, post
            }
            let path: Path
            static func redirect(_ count: Int) -> Endpoint { Endpoint(path: .redirect(count: count)) }
            static func status(_ code: Int) -> Endpoint { Endpoint(path: .status(code)) }
            static var get: Endpoint { Endpoint(path: .get) }
            static func make() -> Endpoint { .init(path: .post) }
        }
        final class Holder {
            var endpoint: Endpoint
            var other: Endpoint
            init() {
                self.endpoint = .init(path: .get)
                let second: Endpoint = .init(path: .post)
                other = second
            }
            func fetch(_ endpoint: Endpoint) {}
            func run() {
                fetch(.redirect(3))
                fetch(.status(200))
                store(in: 1)
            }
            func store(_ value: Int) {}
        }
    """,
}


def test_enum_cases_are_constants_and_never_a_functions_call(resolved, parse):
    p = parse("swift", "Tests/TestHelpers.swift", ENDPOINTS["Tests/TestHelpers.swift"])
    path = p["Tests.TestHelpers.Endpoint.Path.redirect"]
    assert (path.kind, path.signature) == ("constant", "case redirect(count: Int)")
    calls = resolved("swift", ENDPOINTS)
    e = "Tests.TestHelpers.Endpoint"
    # `.redirect(count:)` is the Path case (labelled `count`), not `Endpoint.redirect(_:)`
    assert (f"{e}.redirect", f"{e}.redirect") not in calls
    # `.status(code)` may be the case `status(Int)` as well as the function: no edge
    assert (f"{e}.status", f"{e}.status") not in calls
    # `.redirect(3)` (no label) is no case of that name: the static function
    run = "Tests.TestHelpers.Holder.run"
    assert calls[(run, f"{e}.redirect")] == "unique_name"  # (the context's type unknown)
    assert (run, f"{e}.status") not in calls
    # `store(in:)` does not fit `store(_:)`: labels rule a single function out too
    assert (run, "Tests.TestHelpers.Holder.store") not in calls


def test_an_implicit_member_takes_the_type_its_context_names(resolved, parse):
    p = parse("swift", "Tests/TestHelpers.swift", ENDPOINTS["Tests/TestHelpers.swift"])
    # `self.endpoint = .init(..)` (a stored property declared Endpoint), `let x: Endpoint =
    # .init(..)`, `.init(..)` returned from a function declared `-> Endpoint`
    assert p.calls("Tests.TestHelpers.Holder.init") == [
        "Endpoint.init/(path.get)",
        "Endpoint.init/(path.post)",
    ]
    assert p.calls("Tests.TestHelpers.Endpoint.make") == ["Endpoint.init/(path.post)"]
    calls = resolved("swift", ENDPOINTS)
    # Endpoint has no init of its own (a memberwise one): the struct, never Holder's init
    holder_init = "Tests.TestHelpers.Holder.init"
    assert calls[(holder_init, "Tests.TestHelpers.Endpoint")] == "exact"
    assert (holder_init, holder_init) not in calls


CHAINS = {
    "Source/Alamofire.swift": """
        public let AF = Session.default
    """,
    "Source/Core/Session.swift": """
        open class Session {
            public static let `default` = Session()
            public init() {}
            open func request(_ url: String, method: String = "GET") -> DataRequest { DataRequest() }
            open func request(_ url: String, interceptor: (any Interceptor)?) -> DataRequest { DataRequest() }
            func request(for task: Int) -> Request? { nil }
            open func download(_ url: String) -> DownloadRequest { DownloadRequest() }
        }
        public class Request {
            weak var eventMonitor: (any EventMonitor)?
            public func validate() -> Self { self }
            func finish() {
                eventMonitor?.requestDidFinish(self)
            }
        }
        public final class DataRequest: Request {
            public func response(completionHandler: @escaping () -> Void) -> Self { self }
        }
        public final class DownloadRequest: Request {
            public func response(completionHandler: @escaping () -> Void) -> Self { self }
        }
        public protocol EventMonitor {
            func requestDidFinish(_ request: Request)
        }
        public protocol Interceptor {}
    """,
    "Tests/ChainTests.swift": """
        final class ChainTests {
            func testChain() {
                AF.request("/get").validate().response { }
                Session().download("/file").validate().response { }
            }
        }
    """,
}


def test_a_chain_of_calls_follows_what_each_returns(resolved, parse):
    p = parse("swift", "Tests/ChainTests.swift", CHAINS["Tests/ChainTests.swift"])
    assert p.calls("Tests.ChainTests.ChainTests.testChain") == [
        "AF.request/(_:String)",
        "AF.request().validate/()",
        "AF.request().validate().response/({})",
        "Session/()",
        "Session().download/(_:String)",
        "Session().download().validate/()",
        "Session().download().validate().response/({})",
    ]
    calls = resolved("swift", CHAINS)
    test = "Tests.ChainTests.ChainTests.testChain"
    core = "Source.Core.Session"
    # `AF` is `Session.default`, a Session; `request` returns a DataRequest whatever the member
    # (the optional `request(for:)` aside); `validate() -> Self` keeps the receiver's type
    assert calls[(test, f"{core}.Session.request")] == "exact"
    assert calls[(test, f"{core}.Request.validate")] == "exact"
    assert calls[(test, f"{core}.DataRequest.response")] == "exact"
    assert calls[(test, f"{core}.DownloadRequest.response")] == "exact"
    # `(any EventMonitor)?` is an EventMonitor
    assert calls[(f"{core}.Request.finish", f"{core}.EventMonitor.requestDidFinish")] == "exact"


LIBRARY_INITS = {
    "Sources/Vapor/Utilities/ByteBuffer+String.swift": """
        import NIOCore
        extension ByteBuffer {
            init(string: String) { self.init() }
        }
        extension HTTPHeaders {
            init(pairs: [(String, String)]) { self.init() }
        }
    """,
    "Sources/Vapor/Body.swift": """
        import NIOCore
        func body() {
            let a = ByteBuffer(string: "x")
            let b = HTTPHeaders()
            let c = NIOLock()
        }
    """,
    "Tests/VaporTests/Utilities/ThreadSafe.swift": """
        fileprivate class NIOLock {
            init() {}
        }
    """,
}


def test_a_library_types_initializer_added_by_an_extension():
    parsed = [
        parse_source(p, textwrap.dedent(c).lstrip("\n").encode(), "swift", module=module_id(p))
        for p, c in LIBRARY_INITS.items()
    ]
    res = resolve(parsed)
    calls = {(e.src, e.dst): e.resolution for e in res.edges if e.kind == "calls"}
    body = "Sources.Vapor.Body.body"
    # `ByteBuffer(string:)`: the extension's init, its label fits no other here
    assert calls[(body, "Sources.Vapor.Utilities.ByteBuffer+String.ByteBuffer.init")] == "exact"
    # `HTTPHeaders()` fits no init the repository adds: the library's own (external); a test
    # file's fileprivate `NIOLock` is not the source file's `NIOLock()`
    assert not any(dst.startswith("Tests.") for src, dst in calls if src == body)
    assert res.external[body] == 2


OVERLOAD_RANKING = {
    "Sources/XCTVapor/XCTApplicationTester.swift": """
        import Vapor
        public protocol XCTApplicationTester {}
        extension XCTApplicationTester {
            public func test(_ method: String, _ path: String, afterResponse: (Response) async throws -> ()) async throws {}
            @available(*, noasync)
            public func test(_ method: String, _ path: String, afterResponse: (Response) throws -> ()) throws {}
            public func test(_ method: String, _ path: String, beforeRequest: (inout Request) throws -> () = { _ in }, afterResponse: (Response) throws -> () = { _ in }) throws {}
        }
        extension Application: XCTApplicationTester {
            public func testable() -> XCTApplicationTester { self }
        }
    """,
    "Sources/VaporTesting/TestingApplicationTester.swift": """
        import Vapor
        public protocol TestingApplicationTester {}
        extension TestingApplicationTester {
            public func test(_ method: String, _ path: String, afterResponse: (Response) async throws -> ()) async throws {}
        }
        extension Application: TestingApplicationTester {
            public func testing() -> TestingApplicationTester { self }
        }
    """,
    "Sources/Vapor/Application.swift": """
        public final class Application {
            public init() {}
        }
        public struct File {
            public init(data: String, filename: String) {}
            public init(data: ByteBuffer, filename: String) {}
        }
        public final class Recorder {
            func record(_ value: Int64) { self.record(Double(value)) }
            func record(_ value: Double) {}
            @_disfavoredOverload
            func publish(type: String) {}
            func publish(type: String = "", queue: Int = 0) {}
            func send() { publish(type: "a") }
        }
    """,
    "Tests/AppTests/AppTests.swift": """
        import XCTVapor
        final class AppTests {
            func testSync(app: Application) throws {
                try app.testable().test("GET", "/") { res in }
            }
            func testAsync(app: Application) async throws {
                try await app.testable().test("GET", "/") { res async in }
                try await app.test("GET", "/") { res in }
            }
            func testFile() {
                let file = File(data: "contents", filename: "a.txt")
            }
        }
    """,
}


def test_overloads_ranked_as_swift_does_where_the_text_tells(resolved):
    calls = resolved("swift", OVERLOAD_RANKING)
    tester = "Sources.XCTVapor.XCTApplicationTester.XCTApplicationTester.test"
    # no `await`: only a synchronous member; of those, the one whose last parameter the
    # trailing closure fills (in `test#3` it would land in `beforeRequest`)
    sync = "Tests.AppTests.AppTests.AppTests.testSync"
    assert calls[(sync, f"{tester}#2")] == "exact"
    assert (sync, tester) not in calls and (sync, f"{tester}#3") not in calls
    # under `await`, the async member; the file imports XCTVapor, not VaporTesting, so
    # Application's `test` is XCTApplicationTester's
    run = "Tests.AppTests.AppTests.AppTests.testAsync"
    assert calls[(run, tester)] == "exact"
    assert (run, f"{tester}#2") not in calls
    assert not any("VaporTesting" in dst for src, dst in calls if src == run)
    # `File(data: "..")`: the String member, not the ByteBuffer one
    app = "Sources.Vapor.Application"
    assert calls[("Tests.AppTests.AppTests.AppTests.testFile", f"{app}.File.init")] == "exact"
    assert ("Tests.AppTests.AppTests.AppTests.testFile", f"{app}.File.init#2") not in calls
    # `Double(value)` is a Double: `record(_: Double)`, not the caller itself
    assert calls[(f"{app}.Recorder.record", f"{app}.Recorder.record#2")] == "exact"
    assert (f"{app}.Recorder.record", f"{app}.Recorder.record") not in calls
    # an `@_disfavoredOverload` member loses to another that fits
    assert calls[(f"{app}.Recorder.send", f"{app}.Recorder.publish#2")] == "exact"
    assert (f"{app}.Recorder.send", f"{app}.Recorder.publish") not in calls


def test_an_override_edge_only_to_a_member_implementing_the_declared_one(resolved):
    files = {
        "Sources/Vapor/Responder.swift": """
            public protocol Responder {
                func respond(to request: Request) -> EventLoopFuture<Response>
            }
            public protocol AsyncResponder: Responder {
                func respond(to request: Request) async throws -> Response
            }
            public struct BasicResponder: Responder {
                public func respond(to request: Request) -> EventLoopFuture<Response> { fatalError() }
            }
            public struct AsyncBasicResponder: AsyncResponder {
                public func respond(to request: Request) async throws -> Response { fatalError() }
            }
            func forward(next: Responder, request: Request) {
                next.respond(to: request)
            }
        """,
    }
    calls = resolved("swift", files)
    forward = "Sources.Vapor.Responder.forward"
    assert calls[(forward, "Sources.Vapor.Responder.Responder.respond")] == "exact"
    assert calls[(forward, "Sources.Vapor.Responder.BasicResponder.respond")] == "override"
    # the async `respond(to:)` implements AsyncResponder's async requirement, not Responder's
    assert (forward, "Sources.Vapor.Responder.AsyncBasicResponder.respond") not in calls


def test_more_than_two_members_told_apart_by_types_the_text_hides_make_no_edge(resolved):
    files = {
        "Source/Encoder.swift": """
            struct Container {
                func encode(_ value: Bool) {}
                func encode(_ value: String) {}
                func encode(_ value: Int) {}
                func encodeNil(_ value: Any) {
                    encode(value)
                }
            }
        """,
    }
    calls = resolved("swift", files)
    caller = "Source.Encoder.Container.encodeNil"
    assert not any(src == caller for src, _ in calls)


def test_a_global_of_a_library_type_makes_no_unique_name_guess(resolved):
    files = {
        "Sources/VaporTesting/TaskLocalMetricsSystem.swift": """
            public import Metrics
            public import MetricsTestKit

            public final class TaskLocalMetricsSystemWrapper: MetricsFactory {
                public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
                    metrics.destroyFloatingPointCounter(handler)
                }
                public func makeSink() -> Sink {
                    sink.makeSink()
                }
            }

            @TaskLocal public var metrics: TestMetrics = TestMetrics()
            public var sink: Sink = Sink()

            public final class Sink {
                public func makeSink() -> Sink { self }
            }
        """,
    }
    calls = resolved("swift", files)
    m = "Sources.VaporTesting.TaskLocalMetricsSystem"
    # `metrics` is declared a TestMetrics, a type the repository neither defines nor extends:
    # the library's method, not the one method of that name here (the caller itself)
    assert not [dst for src, dst in calls if src.endswith("destroyFloatingPointCounter")]
    # a global of a repository type still reaches that type's method
    assert (f"{m}.TaskLocalMetricsSystemWrapper.makeSink", f"{m}.Sink.makeSink") in calls


def test_closure_parameters_take_the_type_the_callee_gives_them(resolved):
    files = {
        "Sources/VaporTesting/withApp.swift": """
            public func withApp<T>(
                logger: Logger = Logger.current,
                configure: ((Application) async throws -> Void)? = nil,
                _ test: (Application) async throws -> T
            ) async throws -> T {
                let app = Application()
                return try await test(app)
            }
        """,
        "Sources/Vapor/Application.swift": """
            public final class Application {
                public func testing(method: Method = .inMemory) async throws -> any Tester {
                    Tester()
                }
                public func get(_ path: String, use closure: @escaping @Sendable (Request) async throws -> Response) {}
                public func shutdown() async throws {}
            }
            public protocol Tester {}
            extension Tester {
                public func test(
                    _ path: String,
                    sourceLocation: SourceLocation = #_sourceLocation,
                    afterResponse: (Response) async throws -> ()
                ) async throws {}
            }
            public final class Request {
                public var logger: Logger
                public func redirect(to path: String) -> Response { Response() }
            }
            public final class Response {}
            public final class Other {
                public func shutdown() async throws {}
                public func redirect(to path: String) -> Response { Response() }
            }
        """,
        "Tests/VaporTests/RouteTests.swift": """
            import VaporTesting
            import Vapor

            struct RouteTests {
                func hello() async throws {
                    try await withApp { app in
                        app.get("hello") { req in
                            req.redirect(to: "/")
                        }
                        try await app.testing().test("/hello") { res in }
                        try await app.shutdown()
                    }
                }
            }
        """,
    }
    calls = resolved("swift", files)
    caller = "Tests.VaporTests.RouteTests.RouteTests.hello"
    v = "Sources.Vapor.Application"
    # the trailing closure fills `test` (Swift's forward scan passes over the defaulted
    # `configure`), whose parameter is an Application
    assert calls[(caller, "Sources.VaporTesting.withApp.withApp")] == "exact"
    assert calls[(caller, f"{v}.Application.shutdown")] == "exact"
    assert (caller, f"{v}.Other.shutdown") not in calls
    # `req` is the Request `get`'s closure takes
    assert calls[(caller, f"{v}.Request.redirect")] == "exact"
    assert (caller, f"{v}.Other.redirect") not in calls
    # `sourceLocation: SourceLocation = #_sourceLocation` has a default: `test(path) { }` fits
    assert calls[(caller, f"{v}.Tester.test")] == "exact"
    # `test(app)` calls the closure the parameter holds, no method named `test`
    assert not [d for s, d in calls if s == "Sources.VaporTesting.withApp.withApp"]


def test_attribute_members_and_constructed_arguments(resolved):
    files = {
        "Sources/Vapor/Utilities/File.swift": """
            public struct File {
                public init(data: String, filename: String) {}
                public init(data: ByteBuffer, filename: String) {}
                init(part: Part) {
                    self.init(data: ByteBuffer(bytes: part.body), filename: part.name)
                }
            }
            public struct ResponseCompressionConfiguration {
                public static func disabled() -> Self { .init() }
            }
            extension ByteBuffer {
                public func readAll() {}
            }
        """,
        "Tests/VaporTests/PipelineTests.swift": """
            import Testing
            import Vapor

            @Suite("Pipeline Tests", .disabled())
            struct PipelineTests {
                @Test(.disabled())
                func pipeline() {
                    let config: ResponseCompressionConfiguration = .disabled()
                }
            }
        """,
    }
    calls = resolved("swift", files)
    m = "Sources.Vapor.Utilities.File"
    # `ByteBuffer(bytes:)` makes a ByteBuffer: the member taking one, not the String one
    assert calls[(f"{m}.File.init#3", f"{m}.File.init#2")] == "exact"
    assert (f"{m}.File.init#3", f"{m}.File.init") not in calls
    # `.disabled()` in `@Test(..)` is a member of the library trait type the attribute takes
    t = "Tests.VaporTests.PipelineTests.PipelineTests.pipeline"
    assert [d for s, d in calls if s == t] == [f"{m}.ResponseCompressionConfiguration.disabled"]
    assert not [d for s, d in calls if s == "Tests.VaporTests.PipelineTests.PipelineTests"]


def test_a_member_without_variadics_beats_one_with(resolved):
    files = {
        "Sources/Vapor/HTTP/Headers/HTTPCookies.swift": """
            public struct HTTPCookies {
                public init() {}
                public init(dictionaryLiteral elements: (String, String)...) {}
            }
            func makeJar() -> HTTPCookies {
                HTTPCookies()
            }
        """,
    }
    calls = resolved("swift", files)
    m = "Sources.Vapor.HTTP.Headers.HTTPCookies"
    assert calls[(f"{m}.makeJar", f"{m}.HTTPCookies.init")] == "exact"
    assert (f"{m}.makeJar", f"{m}.HTTPCookies.init#2") not in calls


def test_a_private_type_is_its_own_and_self_init_delegates_elsewhere(resolved):
    files = {
        "Sources/Development/routes.swift": """
            struct User: Content {
                let id: Int
                let name: String
            }
        """,
        "Tests/VaporTests/URLEncodedFormTests.swift": """
            struct URLEncodedFormTests {
                func encode() throws {
                    let tanner = User(name: "Tanner", age: 23)
                }
            }
            private struct User: Codable {
                var name: String
                var age: Int
            }
        """,
        "Sources/Vapor/Utilities/BasicCodingKey.swift": """
            public enum BasicCodingKey {
                public init(_ codingKey: some CodingKey) {}
                public init(_ codingKeyRepresentable: some CodingKeyRepresentable) {
                    self.init(codingKeyRepresentable.codingKey)
                }
            }
        """,
    }
    calls = resolved("swift", files)
    t = "Tests.VaporTests.URLEncodedFormTests"
    # the test file's `private struct User`, not the `User` of another module's file
    assert calls[(f"{t}.URLEncodedFormTests.encode", f"{t}.User")] == "exact"
    assert (f"{t}.URLEncodedFormTests.encode", "Sources.Development.routes.User") not in calls
    # `self.init(..)` inside an initializer delegates to another one
    k = "Sources.Vapor.Utilities.BasicCodingKey.BasicCodingKey"
    assert (f"{k}.init#2", f"{k}.init#2") not in calls
    assert (f"{k}.init#2", f"{k}.init") in calls


def test_a_variadic_parameter_is_an_array_inside_and_takes_no_array(resolved):
    files = {
        "Sources/Vapor/Routing/RoutesBuilder.swift": """
            public protocol Middleware {}
            public protocol RoutesBuilder {}
            extension RoutesBuilder {
                public func grouped(_ path: PathComponent...) -> any RoutesBuilder { self }
                public func grouped(_ path: [PathComponent]) -> any RoutesBuilder { self }
                public func grouped(_ middleware: any Middleware...) -> any RoutesBuilder {
                    self.grouped(middleware)
                }
                public func grouped(_ middleware: [any Middleware]) -> any RoutesBuilder { self }
            }
        """,
    }
    calls = resolved("swift", files)
    m = "Sources.Vapor.Routing.RoutesBuilder.RoutesBuilder"
    # `middleware` is a `[any Middleware]` inside: the array member, not the variadic one
    # (no array goes to a variadic parameter), nor the one of another element type
    assert calls[(f"{m}.grouped#3", f"{m}.grouped#4")] == "exact"
    assert (f"{m}.grouped#3", f"{m}.grouped#2") not in calls


def test_an_override_edge_goes_to_the_member_of_the_declared_parameter_types(resolved):
    files = {
        "Sources/Vapor/Content/URLQueryCoders.swift": """
            public protocol URLQueryDecoder {
                func decode<D>(_ decodable: D.Type, from url: URI) throws -> D
            }
            public struct URLEncodedFormDecoder: URLQueryDecoder {
                public func decode<D>(_ decodable: D.Type, from url: URI) throws -> D { fatalError() }
                public func decode<D>(_ decodable: D.Type, from string: String) throws -> D { fatalError() }
            }
            func query<D>(decoder: URLQueryDecoder, url: URI) throws -> D {
                try decoder.decode(D.self, from: url)
            }
        """,
    }
    calls = resolved("swift", files)
    m = "Sources.Vapor.Content.URLQueryCoders"
    assert calls[(f"{m}.query", f"{m}.URLQueryDecoder.decode")] == "exact"
    assert calls[(f"{m}.query", f"{m}.URLEncodedFormDecoder.decode")] == "override"
    assert (f"{m}.query", f"{m}.URLEncodedFormDecoder.decode#2") not in calls


def test_a_string_is_no_repository_protocol_value_unless_declared(resolved):
    files = {
        "Sources/Vapor/Routing/RoutesBuilder.swift": """
            public protocol Middleware {}
            public final class CORSMiddleware: Middleware {}
            public protocol RoutesBuilder {}
            extension RoutesBuilder {
                public func grouped(_ path: PathComponent...) -> any RoutesBuilder { self }
                public func grouped(_ path: [PathComponent]) -> any RoutesBuilder { self }
                public func grouped(_ middleware: any Middleware...) -> any RoutesBuilder { self }
                public func grouped(_ middleware: [any Middleware]) -> any RoutesBuilder { self }
            }
            func routes(app: any RoutesBuilder) {
                let sessions = app.grouped("sessions")
            }
            func cors(app: any RoutesBuilder) {
                let group = app.grouped(CORSMiddleware())
            }
        """,
    }
    calls = resolved("swift", files)
    m = "Sources.Vapor.Routing.RoutesBuilder"
    # "sessions" is a PathComponent (a library type a literal may make), no Middleware
    assert calls[(f"{m}.routes", f"{m}.RoutesBuilder.grouped")] == "exact"
    assert (f"{m}.routes", f"{m}.RoutesBuilder.grouped#3") not in calls
    # one argument fills a variadic parameter: the arrays' members are no better; four
    # members fit as far as the text tells: no edge
    assert not [d for s, d in calls if s == f"{m}.cors" and ".grouped" in d]
