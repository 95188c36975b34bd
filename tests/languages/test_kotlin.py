import textwrap

from codebot.core.model import Import, Parameter
from codebot.graph.resolve import resolve
from codebot.parse.extract import module_id, parse_source

PATH = "src/main/kotlin/com/acme/orders/OrderService.kt"
M = "src.main.kotlin.com.acme.orders.OrderService"

SOURCE = """
package com.acme.orders

import kotlinx.coroutines.withContext
import com.acme.model.Order as DomainOrder
import com.acme.util.*

/**
 * Places and looks up orders.
 *
 * @property repo where orders live
 */
@Service
@Transactional(readOnly = true)
class OrderService(
    private val repo: OrderRepository,
    val name: String = "orders",
) : BaseService(repo), OrderApi, AutoCloseable {

    init {
        log("created")
    }

    constructor(repo: OrderRepository, id: Int) : this(repo, id.toString())

    /** Places an order. */
    @Throws(IOException::class)
    suspend fun place(id: String, quantity: Int = 1, vararg tags: String): DomainOrder? {
        val order = DomainOrder(id, quantity)
        this.repo.save(order)
        super.audit(order)
        return repo.findById(id)?.let { OrderService.copy(it) }
    }

    fun place(ids: List<String>): List<DomainOrder> = ids.mapNotNull { place(it) }

    override fun close() = repo.close()

    fun <T> List<T>.second(): T = this[1]

    companion object {
        const val LIMIT = 10

        fun copy(o: DomainOrder): DomainOrder = o.copy()
    }

    inner class Cursor {
        fun next() = repo.next()
    }

    class Builder {
        fun build(): OrderService = OrderService(InMemoryRepository())
    }
}

data class Line(val sku: String, val count: Int = 1) : Comparable<Line> {
    override fun compareTo(other: Line) = count - other.count
}

object Registry : Base() {
    fun register(service: OrderService) {}
}

interface OrderApi {
    fun place(id: String, quantity: Int = 1): DomainOrder?
    fun priority(): Int = 0
}

enum class Status(val label: String) {
    OPEN("open"), CLOSED("closed");

    fun display() = label.uppercase()
}

sealed interface Event

/** Shouts. */
fun String.shout(): String = uppercase() + "!"

fun <T : Comparable<T>> List<T>?.largest(): T? = this?.maxOrNull()

suspend fun fetchAll(service: OrderService, ids: List<String> = emptyList()) =
    withContext(Dispatchers.IO) { service.place(ids) }
"""


def test_ids_kinds_lines(parse):
    p = parse("kotlin", PATH, SOURCE)
    assert p.ids == [
        f"{M}.OrderService",
        f"{M}.OrderService.constructor",
        f"{M}.OrderService.place",
        f"{M}.OrderService.place#2",
        f"{M}.OrderService.close",
        f"{M}.OrderService.List.second",
        f"{M}.OrderService.Companion",
        f"{M}.OrderService.Companion.LIMIT",
        f"{M}.OrderService.Companion.copy",
        f"{M}.OrderService.Cursor",
        f"{M}.OrderService.Cursor.next",
        f"{M}.OrderService.Builder",
        f"{M}.OrderService.Builder.build",
        f"{M}.Line",
        f"{M}.Line.compareTo",
        f"{M}.Registry",
        f"{M}.Registry.register",
        f"{M}.OrderApi",
        f"{M}.OrderApi.place",
        f"{M}.OrderApi.priority",
        f"{M}.Status",
        f"{M}.Status.display",
        f"{M}.Event",
        f"{M}.String.shout",
        f"{M}.List.largest",
        f"{M}.fetchAll",
    ]
    spans = {s.id: (s.kind, s.start_line, s.end_line, s.class_name) for s in p.result.symbols}
    assert spans[f"{M}.OrderService"] == ("class", 12, 53, None)
    assert spans[f"{M}.OrderService.place"] == ("method", 26, 32, "OrderService")
    assert spans[f"{M}.OrderService.Companion"] == ("class", 40, 44, "OrderService")
    assert spans[f"{M}.OrderService.Companion.copy"] == ("method", 43, 43, "Companion")
    assert spans[f"{M}.OrderService.Cursor.next"] == ("method", 47, 47, "Cursor")
    assert spans[f"{M}.Line"] == ("class", 55, 57, None)
    assert spans[f"{M}.Registry"] == ("class", 59, 61, None)
    assert spans[f"{M}.OrderApi"] == ("interface", 63, 66, None)
    assert spans[f"{M}.Status"] == ("enum", 68, 72, None)
    assert spans[f"{M}.Status.display"] == ("method", 71, 71, "Status")
    assert spans[f"{M}.Event"] == ("interface", 74, 74, None)
    assert spans[f"{M}.fetchAll"] == ("function", 81, 82, None)


def test_extension_functions_belong_to_the_receiver(parse):
    p = parse("kotlin", PATH, SOURCE)
    shout = p[f"{M}.String.shout"]
    assert (shout.kind, shout.class_name, shout.parent) == ("method", "String", None)
    assert (shout.return_type, shout.docstring) == ("String", "Shouts.")
    assert shout.signature == "fun String.shout(): String"
    assert p.calls(shout.id) == ["uppercase/()"]
    largest = p[f"{M}.List.largest"]
    assert (largest.class_name, largest.return_type) == ("List", "T?")
    assert p.calls(largest.id) == ["this?.maxOrNull/()"]
    # A member extension: a method of its receiver, nested where it is written.
    second = p[f"{M}.OrderService.List.second"]
    assert (second.class_name, second.parent) == ("List", f"{M}.OrderService")


def test_class_doc_annotations_bases(parse):
    p = parse("kotlin", PATH, SOURCE)
    cls = p[f"{M}.OrderService"]
    assert cls.docstring == "Places and looks up orders.\n\n@property repo where orders live"
    assert cls.decorators == ("Service", "Transactional(readOnly = true)")
    assert cls.bases == ("BaseService", "OrderApi", "AutoCloseable")
    assert cls.signature == (
        "@Service @Transactional(readOnly = true) class OrderService( private val repo: "
        'OrderRepository, val name: String = "orders", ) : BaseService(repo), OrderApi, AutoCloseable'
    )
    assert p[f"{M}.Line"].bases == ("Comparable<Line>",)
    assert p[f"{M}.Line"].signature == (
        "data class Line(val sku: String, val count: Int = 1) : Comparable<Line>"
    )
    assert p[f"{M}.Registry"].bases == ("Base",)


def test_functions_parameters_defaults_returns(parse):
    p = parse("kotlin", PATH, SOURCE)
    place = p[f"{M}.OrderService.place"]
    assert place.parameters == (
        Parameter("id", "String"),
        Parameter("quantity", "Int", "1"),
        Parameter("tags", "vararg String"),
    )
    assert place.return_type == "DomainOrder?"
    assert place.decorators == ("Throws(IOException::class)",)
    assert place.docstring == "Places an order."
    assert place.signature == (
        "@Throws(IOException::class) suspend fun place(id: String, quantity: Int = 1, "
        "vararg tags: String): DomainOrder?"
    )
    assert p[f"{M}.OrderService.place#2"].return_type == "List<DomainOrder>"
    ctor = p[f"{M}.OrderService.constructor"]
    assert ctor.parameters == (Parameter("repo", "OrderRepository"), Parameter("id", "Int"))
    assert ctor.return_type is None
    assert (
        ctor.signature == "constructor(repo: OrderRepository, id: Int) : this(repo, id.toString())"
    )
    assert p[f"{M}.OrderService.close"].return_type is None  # inferred
    fetch = p[f"{M}.fetchAll"]
    assert fetch.parameters == (
        Parameter("service", "OrderService"),
        Parameter("ids", "List<String>", "emptyList()"),
    )
    assert p[f"{M}.OrderApi.place"].parameters == (
        Parameter("id", "String"),
        Parameter("quantity", "Int", "1"),
    )


def test_calls(parse):
    p = parse("kotlin", PATH, SOURCE)
    # A receiver declared with a type (a constructor's `val`, a parameter) carries it; each
    # call ends with its arguments' types (a trailing lambda last), for choosing overloads.
    assert p.calls(f"{M}.OrderService.place") == [
        "DomainOrder/(String, Int)",
        "(this.repo: OrderRepository).save/(DomainOrder)",
        "super.audit/(DomainOrder)",
        "(repo: OrderRepository).findById/(String)",
        # on the value of `repo.findById(id)`: that call, through its return type
        "(=> (repo: OrderRepository).findById/(String)).let/(trailing)",
        "OrderService.copy/(?)",
    ]
    assert p.calls(f"{M}.OrderService.place#2") == [
        "(ids: List<String>).mapNotNull/(trailing)",
        "place/(?)",
    ]
    assert p.calls(f"{M}.OrderService.constructor") == ["this", "(id: Int).toString/()"]
    assert p.calls(f"{M}.OrderService.Companion.copy") == ["(o: DomainOrder).copy/()"]
    assert p.calls(f"{M}.OrderService.Builder.build") == [
        "OrderService/(InMemoryRepository)",
        "InMemoryRepository/()",
    ]
    assert p.calls(f"{M}.fetchAll") == [
        "emptyList/()",
        "withContext/(enum:Dispatchers.IO, trailing)",
        "(service: OrderService).place/(List)",
    ]
    # The supertype's constructor call and the init block belong to the class.
    assert p.calls(f"{M}.OrderService") == ["BaseService", "log/(String)"]


def test_imports(parse):
    p = parse("kotlin", PATH, SOURCE)
    assert p.imports == [
        Import("kotlinx.coroutines", "withContext", line=3),
        Import("com.acme.model", "Order", "DomainOrder", line=4),
        Import("com.acme.util", "*", line=5),
    ]


def test_enum_class_is_an_enum_wherever_it_comes(parse):
    code = """
    class Plain

    @Serializable(with = StatusSerializer::class)
    internal enum class Status { OPEN }
    """
    p = parse("kotlin", "S.kt", code)
    assert [(s.id, s.kind) for s in p.result.symbols if s.kind != "chunk"] == [
        ("S.Plain", "class"),
        ("S.Status", "enum"),
    ]


# --- typed receivers: the type a reader sees at a glance ---------------------------------------

KTOR = {
    "src/io/ktor/server/engine/Engine.kt": """
        package io.ktor.server.engine

        import java.io.InputStream

        class ApplicationEngineEnvironment {
            fun start() {}
            fun stop() {}
        }

        class EnginePipeline {
            fun execute() {}
        }

        class BaseApplicationEngine(val environment: ApplicationEngineEnvironment) {
            private val pipeline: EnginePipeline = EnginePipeline()

            fun start() {
                environment.start()
                pipeline.execute()
            }

            fun stop() {}
        }

        fun main(input: InputStream, title: String) {
            val engine = BaseApplicationEngine(ApplicationEngineEnvironment())
            engine.start()
            val env: ApplicationEngineEnvironment = engine.environment
            env.stop()
            input.reader()
            title.slugify()
        }
    """,
    "src/io/ktor/server/engine/Other.kt": """
        package io.ktor.server.engine

        class OtherPipeline {
            fun execute() {}
            fun reader(): String = ""
        }

        fun String.slugify(): String = lowercase()
    """,
}


def test_typed_receivers_val_constructor_declared_and_fields(parse, resolved):
    p = parse(
        "kotlin", "src/io/ktor/server/engine/Engine.kt", KTOR["src/io/ktor/server/engine/Engine.kt"]
    )
    assert p.calls("src.io.ktor.server.engine.Engine.main")[2:4] == [
        "(engine = BaseApplicationEngine()).start/()",
        "(env: ApplicationEngineEnvironment).stop/()",
    ]
    calls = resolved("kotlin", KTOR)
    m = "src.io.ktor.server.engine.Engine"
    # `val engine = T(...)`, `val env: T`: `start` and `stop` are each defined twice
    assert calls[(f"{m}.main", f"{m}.BaseApplicationEngine.start")] == "exact"
    assert calls[(f"{m}.main", f"{m}.ApplicationEngineEnvironment.stop")] == "exact"
    assert (f"{m}.main", f"{m}.BaseApplicationEngine.stop") not in calls
    # a constructor's `val environment: T` and a typed property
    start = f"{m}.BaseApplicationEngine.start"
    assert calls[(start, f"{m}.ApplicationEngineEnvironment.start")] == "exact"
    assert calls[(start, f"{m}.EnginePipeline.execute")] == "exact"
    assert (start, "src.io.ktor.server.engine.Other.OtherPipeline.execute") not in calls


def test_typed_receiver_of_a_library_type_is_external_but_extensions_count(resolved):
    calls = resolved("kotlin", KTOR)
    m, other = "src.io.ktor.server.engine.Engine", "src.io.ktor.server.engine.Other"
    # `input: InputStream`: java.io's reader(), not the repository's only `reader`
    assert (f"{m}.main", f"{other}.OtherPipeline.reader") not in calls
    # `title: String`: the repository's extension `String.slugify`
    assert calls[(f"{m}.main", f"{other}.String.slugify")] == "exact"


# --- module-level names (issue 21) ---------------------------------------------------------------

NAMES = """
package io.ktor.server

const val DEFAULT_PORT = 8080
val defaultHeaders = listOf("Date")
var counter = 0
private val handler = { x: Int -> x }

object Config {
    const val TIMEOUT = 5
    val other = 1
}

fun f() { val local = 1 }
"""


def test_module_names(parse):
    p = parse("kotlin", "server/Config.kt", NAMES)
    kinds = {s.id: s.kind for s in p.result.symbols if s.kind in ("constant", "variable")}
    assert kinds == {
        "server.Config.DEFAULT_PORT": "constant",
        "server.Config.defaultHeaders": "variable",
        "server.Config.counter": "variable",
        "server.Config.handler": "variable",
        "server.Config.Config.TIMEOUT": "constant",
        "server.Config.Config.other": "variable",  # a property of the object
    }
    assert p.calls("server.Config.defaultHeaders") == ["listOf/(String)"]


# --- top-level extension functions called without a receiver (a lambda's implicit one) ---------

KTOR_DSL = {
    # ktor's routing DSL (trimmed): `fun Route.get(...)` at top level
    "ktor-server-core/common/src/io/ktor/server/routing/RoutingBuilder.kt": """
        package io.ktor.server.routing

        public fun Route.get(path: String, body: RoutingHandler): Route = route(path) {}
        public fun Route.route(path: String, build: Route.() -> Unit): Route = this
        public fun Application.routing(configuration: Routing.() -> Unit): RoutingRoot = TODO()
    """,
    "ktor-server-core/common/src/io/ktor/server/application/ApplicationPlugin.kt": """
        package io.ktor.server.application

        public fun <P : Pipeline<*, PipelineCall>, B : Any, F : Any> P.install(
            plugin: Plugin<P, B, F>,
            configure: B.() -> Unit = {}
        ): F = TODO()
    """,
    # the client's `install` is a member of HttpClientConfig: a lambda's receiver may be one
    "ktor-client-core/common/src/io/ktor/client/HttpClientConfig.kt": """
        package io.ktor.client

        public class HttpClientConfig<T> {
            public fun install(plugin: Any) {}
        }
    """,
    "ktor-server-tests/jvm/test/io/ktor/tests/server/RoutingTest.kt": """
        package io.ktor.tests.server

        import io.ktor.server.application.*
        import io.ktor.server.routing.*

        class RoutingTest {
            fun testRouting() = testApplication {
                install(CallLogging)
                routing {
                    get("/") { call.respond("ok") }
                }
            }
        }
    """,
    "ktor-client-tests/common/test/io/ktor/client/tests/ClientTest.kt": """
        package io.ktor.client.tests

        import io.ktor.client.*
        import io.ktor.server.application.*

        class ClientTest {
            fun testInstall() = testApplication {
                install(CallLogging)
                val client = createClient { install(Logging) }
            }
        }
    """,
}


def test_top_level_extension_called_without_receiver(resolved):
    calls = resolved("kotlin", KTOR_DSL)
    test = "ktor-server-tests.jvm.test.io.ktor.tests.server.RoutingTest.RoutingTest.testRouting"
    routing = "ktor-server-core.common.src.io.ktor.server.routing.RoutingBuilder"
    install = "ktor-server-core.common.src.io.ktor.server.application.ApplicationPlugin.P.install"
    assert {dst: res for (src, dst), res in calls.items() if src == test} == {
        install: "exact",
        f"{routing}.Application.routing": "exact",
        f"{routing}.Route.get": "exact",
    }
    # the client test sees HttpClientConfig, whose member `install` a lambda's receiver may
    # be: neither `install` is claimed
    client = "ktor-client-tests.common.test.io.ktor.client.tests.ClientTest.ClientTest.testInstall"
    assert not [dst for (src, dst) in calls if src == client and dst.endswith("install")]


# --- overloads: by arity (defaults counted), argument types, trailing lambdas ------------------

KTOR_OVERLOADS = {
    # ktor's MapApplicationConfig (trimmed): two private `combine`s
    "ktor-server-core/common/src/io/ktor/server/config/MapApplicationConfig.kt": """
        package io.ktor.server.config

        internal fun Map<String, Any?>.flatten(prefix: String = ""): List<String> {
            val out = mutableListOf<String>()
            for ((key, value) in entries) {
                out += combine(prefix, key)
                out += combine(prefix, 1)
            }
            return out
        }

        private fun combine(root: String, relative: Int): String = combine(root, relative.toString())
        private fun combine(root: String, relative: String): String = "$root.$relative"
    """,
    # ktor's Frame.Ping: a primary constructor and a secondary one
    "ktor-websockets/common/src/io/ktor/websocket/Frame.kt": """
        package io.ktor.websocket

        public class Ping(data: ByteArray) : Frame {
            public constructor(packet: Source) : this(packet.readByteArray())
        }
    """,
    # ktor's request builders: `preparePatch { }` takes the lambda overload
    "ktor-client-core/common/src/io/ktor/client/request/builders.kt": """
        package io.ktor.client.request

        public suspend inline fun HttpClient.preparePatch(builder: HttpRequestBuilder): HttpStatement =
            TODO()
        public suspend inline fun HttpClient.preparePatch(block: HttpRequestBuilder.() -> Unit): HttpStatement =
            preparePatch(HttpRequestBuilder().apply(block))
        public class HttpRequestBuilder
        public class HttpClient
    """,
    "ktor-test-server/src/io/ktor/tests/Use.kt": """
        package io.ktor.tests

        import io.ktor.websocket.*
        import io.ktor.client.request.*

        fun ping(client: HttpClient) {
            send(Ping("ping".toByteArray()))
            client.preparePatch { url("/") }
            val xs = listOf(1).map { it(2) }
        }
    """,
}


def test_overloads_by_arity_types_and_trailing_lambda(resolved):
    calls = resolved("kotlin", KTOR_OVERLOADS)
    cfg = "ktor-server-core.common.src.io.ktor.server.config.MapApplicationConfig"
    flatten = {dst: r for (src, dst), r in calls.items() if src == f"{cfg}.Map.flatten"}
    # combine(prefix, 1): the Int one; combine(prefix, key) (a loop variable, no type written):
    # either, not known which: no edge (one of two would be wrong)
    assert flatten == {f"{cfg}.combine": "exact"}
    # the Int overload's body calls the String one, not itself
    assert {dst for (src, dst) in calls if src == f"{cfg}.combine"} == {f"{cfg}.combine#2"}
    use = {
        dst: r
        for (src, dst), r in calls.items()
        if src == "ktor-test-server.src.io.ktor.tests.Use.ping"
    }
    assert use == {
        # Ping(ByteArray): the primary constructor (the class), not constructor(Source)
        "ktor-websockets.common.src.io.ktor.websocket.Frame.Ping": "exact",
        # a trailing lambda: the function-typed overload
        "ktor-client-core.common.src.io.ktor.client.request.builders.HttpClient.preparePatch#2": (
            "exact"
        ),
        # `it(2)`: the lambda's parameter, never a repository function named `it`
    }


def test_overloads_over_files_members_before_extensions_no_defaults_first(resolved):
    files = {
        "ktor-server-core/common/src/io/ktor/server/routing/RoutingBuilder.kt": """
            package io.ktor.server.routing

            public fun Route.post(path: String, body: RoutingHandler): Route = TODO()
            public fun Route.postAll(path: String, body: RoutingHandler): Route = post(path) {}
        """,
        "ktor-server-core/common/src/io/ktor/server/routing/RegexRouting.kt": """
            package io.ktor.server.routing

            public fun Route.post(path: Regex, body: RoutingHandler): Route = TODO()
        """,
        "ktor-server-test-host/common/src/io/ktor/server/testing/TestApplication.kt": """
            package io.ktor.server.testing

            public fun testApplication(block: suspend ApplicationTestBuilder.() -> Unit) {}
            public fun testApplication(
                parentCoroutineContext: CoroutineContext = EmptyCoroutineContext,
                block: suspend ApplicationTestBuilder.() -> Unit
            ) {}
        """,
        "ktor-utils/common/src/io/ktor/util/pipeline/Pipeline.kt": """
            package io.ktor.util.pipeline

            public open class Pipeline<TSubject : Any, TContext : Any> {
                public fun intercept(phase: PipelinePhase, block: PipelineInterceptor<TSubject, TContext>) {}
            }
            public inline fun <reified TSubject : Any, TContext : Any> Pipeline<*, TContext>.intercept(
                phase: PipelinePhase,
                noinline block: suspend PipelineContext<TSubject, TContext>.(TSubject) -> Unit
            ) {}
            public class PipelinePhase(public val name: String)
        """,
        "ktor-utils/common/test/io/ktor/util/PipelineTest.kt": """
            package io.ktor.util

            import io.ktor.server.testing.*
            import io.ktor.util.pipeline.*

            class PipelineTest {
                fun testIntercept() = testApplication {
                    val pipeline = Pipeline<String, Unit>()
                    pipeline.intercept(PipelinePhase("a")) { }
                }
            }
        """,
    }
    calls = resolved("kotlin", files)
    routing = "ktor-server-core.common.src.io.ktor.server.routing"
    # `post(path) {}` with a String path: RoutingBuilder's, not RegexRouting's (another file)
    post_all = f"{routing}.RoutingBuilder.Route.postAll"
    assert {dst: r for (src, dst), r in calls.items() if src == post_all} == {
        f"{routing}.RoutingBuilder.Route.post": "exact"
    }
    test = "ktor-utils.common.test.io.ktor.util.PipelineTest.PipelineTest.testIntercept"
    pipeline = "ktor-utils.common.src.io.ktor.util.pipeline.Pipeline"
    assert {dst: r for (src, dst), r in calls.items() if src == test} == {
        # `testApplication { }`: the overload that needs no default value
        "ktor-server-test-host.common.src.io.ktor.server.testing.TestApplication.testApplication": (
            "exact"
        ),
        f"{pipeline}.Pipeline": "exact",
        f"{pipeline}.PipelinePhase": "exact",
        # the member `intercept`, not the extension of the same name
        f"{pipeline}.Pipeline.intercept": "exact",
    }


def test_named_arguments_literal_locals_and_object_members(resolved):
    files = {
        # ktor's MockUtils (trimmed): `respond` overloads
        "ktor-client-mock/common/src/io/ktor/client/engine/mock/MockUtils.kt": """
            package io.ktor.client.engine.mock

            public fun MockRequestHandleScope.respond(content: String, status: Int = 200) {}
            public fun MockRequestHandleScope.respond(content: ByteArray, status: Int = 200) {}
            public fun MockRequestHandleScope.respond(content: ByteReadChannel, status: Int = 200) {}
            public class MockRequestHandleScope
        """,
        "ktor-http/common/src/io/ktor/http/URLUtils.kt": """
            package io.ktor.http

            public fun Url(urlString: String): Url = TODO()
            public fun Url(builder: URLBuilder): Url = TODO()
            public fun install(pipeline: Int) {}
        """,
        "ktor-client-tests/common/test/io/ktor/client/tests/MockTest.kt": """
            package io.ktor.client.tests

            import io.ktor.client.engine.mock.*
            import io.ktor.http.*

            class MockTest {
                fun testRespond(channel: ByteReadChannel) {
                    respond(channel, status = 404)
                    respond(load(), status = 404)
                    val dataUrlString = "data:text/plain,hello"
                    Url(dataUrlString)
                    val hook = object : Hook {
                        override fun install(pipeline: Int) {}
                    }
                    install(1)
                }
                fun load(): ByteArray = TODO()
            }
        """,
    }
    calls = resolved("kotlin", files)
    test = "ktor-client-tests.common.test.io.ktor.client.tests.MockTest.MockTest.testRespond"
    mock = "ktor-client-mock.common.src.io.ktor.client.engine.mock.MockUtils"
    http = "ktor-http.common.src.io.ktor.http.URLUtils"
    assert {dst: r for (src, dst), r in calls.items() if src == test} == {
        # a named argument counts, and is not matched by position: `channel` decides
        f"{mock}.MockRequestHandleScope.respond#3": "exact",
        # `load()` has no type written at the call: any of the three, not known which: no edge
        "ktor-client-tests.common.test.io.ktor.client.tests.MockTest.MockTest.load": "exact",
        f"{http}.Url": "exact",  # `val dataUrlString = "..."`: a String
        # the object expression's `install` is its own member, not in the function's scope
        f"{http}.install": "exact",
    }


def test_a_definition_that_cannot_take_the_arguments_is_not_the_callee(resolved):
    files = {
        "ktor-server-core/common/src/io/ktor/server/routing/Routing.kt": """
            package io.ktor.server.routing

            public fun Application.routing(configuration: Routing.() -> Unit): RoutingRoot = TODO()
        """,
        # a test helper of the same name in the test's own package
        "ktor-server-tests/common/test/io/ktor/tests/server/routing/RoutingResolveTest.kt": """
            package io.ktor.tests.server.routing

            fun routing(rootPath: String = ""): RoutingNode = TODO()
        """,
        "ktor-server-tests/common/test/io/ktor/tests/server/routing/RoutingProcessingTest.kt": """
            package io.ktor.tests.server.routing

            import io.ktor.server.routing.*

            class RoutingProcessingTest {
                fun testRouting() = testApplication {
                    routing { }
                    routing("/root")
                    getAll(name)?.contains(value)
                }
                fun getAll(name: String): List<String> = TODO()
            }
            class StringValues {
                fun contains(name: String): Boolean = false
            }
            class TestApplicationBuilder {
                @Deprecated("Use the suspend argument variant", level = DeprecationLevel.HIDDEN)
                public fun application(block: Application.() -> Unit) {}
                public fun application(block: suspend Application.() -> Unit) {}
                fun configure() { application { } }
            }
        """,
    }
    calls = resolved("kotlin", files)
    test = "ktor-server-tests.common.test.io.ktor.tests.server.routing.RoutingProcessingTest"
    assert {
        dst: r
        for (src, dst), r in calls.items()
        if src == f"{test}.RoutingProcessingTest.testRouting"
    } == {
        # `routing { }`: a lambda, which the helper's String parameter cannot take
        "ktor-server-core.common.src.io.ktor.server.routing.Routing.Application.routing": "exact",
        # `routing("/root")`: the helper
        "ktor-server-tests.common.test.io.ktor.tests.server.routing.RoutingResolveTest.routing": (
            "exact"
        ),
        f"{test}.RoutingProcessingTest.getAll": "exact",
        # `?.contains(value)` on the list `getAll` returns: no `contains` of the repository
    }
    # a hidden deprecated overload is never the one called
    builder = f"{test}.TestApplicationBuilder"
    assert {dst for (src, dst) in calls if src == f"{builder}.configure"} == {
        f"{builder}.application#2"
    }


# --- lambdas with receivers: the implicit `this` of a DSL block --------------------------------

KTOR_RECEIVERS = {
    # ktor's test host (trimmed): `testApplication { }` takes an ApplicationTestBuilder receiver
    "ktor-server-test-host/common/src/io/ktor/server/testing/TestApplication.kt": """
        package io.ktor.server.testing

        import io.ktor.server.routing.Route

        public open class TestApplicationBuilder {
            public fun routing(configuration: Route.() -> Unit) {}
            public fun install(plugin: Any, configure: Any.() -> Unit = {}) {}
        }
        public class ApplicationTestBuilder : TestApplicationBuilder() {
            public fun startApplication() {}
        }
        public fun testApplication(block: suspend ApplicationTestBuilder.() -> Unit) {}
        public fun runLater(block: () -> Unit) {}
    """,
    # ktor's routing (trimmed): extensions of Route; `Route.handle`'s lambda has another receiver
    "ktor-server-core/common/src/io/ktor/server/routing/RoutingBuilder.kt": """
        package io.ktor.server.routing

        public interface Route
        public class RoutingContext {
            public fun respondText(text: String) {}
        }
        public fun Route.route(path: String, build: Route.() -> Unit): Route = TODO()
        public fun Route.get(path: String, body: suspend RoutingContext.() -> Unit): Route = TODO()
        public fun Route.get(body: suspend RoutingContext.() -> Unit): Route = TODO()
        public fun Route.authenticate(
            vararg configurations: String? = arrayOf(null),
            optional: Boolean = false,
            build: Route.() -> Unit
        ): Route = TODO()
        public fun Route.authenticate(
            vararg configurations: String? = arrayOf(null),
            strategy: AuthenticationStrategy,
            build: Route.() -> Unit
        ): Route = TODO()
        public class AuthenticationStrategy
    """,
    # a builder with a member and a `respondText` of its own: not the route handler's
    "ktor-http/common/src/io/ktor/http/HeadersBuilder.kt": """
        package io.ktor.http

        public class HeadersBuilder {
            public fun append(name: String, value: String) {}
            public fun respondText(text: String) {}
        }
        public fun headers(builder: HeadersBuilder.() -> Unit): Headers = TODO()
        public class Headers
    """,
    "ktor-server-tests/jvm/test/io/ktor/tests/server/RoutingTest.kt": """
        package io.ktor.tests.server

        import io.ktor.http.*
        import io.ktor.server.routing.*
        import io.ktor.server.testing.*

        class RoutingTest {
            fun testRouting() = testApplication {
                install(CallLogging)
                startApplication()
                routing {
                    route("/a") {
                        get("/b") { respondText("ok") }
                        authenticate("first", strategy = AuthenticationStrategy()) {
                            get { respondText("in") }
                        }
                    }
                    runLater { route("/c") {} }
                }
            }

            fun testScopes() {
                val builder = HeadersBuilder()
                builder.apply { append("a", "b") }
                with(builder) { append("c", "d") }
                builder.let { it.append("e", "f") }
                HeadersBuilder().also { it.respondText("g") }
                headers { append("h", "i") }
            }
        }
    """,
}


def test_lambda_with_receiver_resolves_through_the_callees_last_parameter(parse, resolved):
    calls = resolved("kotlin", KTOR_RECEIVERS)
    test = "ktor-server-tests.jvm.test.io.ktor.tests.server.RoutingTest.RoutingTest"
    host = "ktor-server-test-host.common.src.io.ktor.server.testing.TestApplication"
    routing = "ktor-server-core.common.src.io.ktor.server.routing.RoutingBuilder"
    assert {dst: r for (src, dst), r in calls.items() if src == f"{test}.testRouting"} == {
        f"{host}.testApplication": "exact",
        # `testApplication`'s `ApplicationTestBuilder.() -> Unit`: members, a base's too
        f"{host}.TestApplicationBuilder.install": "exact",
        f"{host}.ApplicationTestBuilder.startApplication": "exact",
        f"{host}.TestApplicationBuilder.routing": "exact",
        # `routing`'s `Route.() -> Unit`: Route's extensions, by their arguments
        f"{routing}.Route.route": "exact",
        f"{routing}.Route.get": "exact",  # `get("/b") { }`, and not `get { }`
        f"{routing}.Route.get#2": "exact",  # `get { }` in `authenticate { }`
        # `strategy = ...`: the overload with a parameter of that name
        f"{routing}.Route.authenticate#2": "exact",
        f"{routing}.AuthenticationStrategy": "exact",
        # `get`'s `suspend RoutingContext.() -> Unit`: the handler's member, not the
        # HeadersBuilder's `respondText`
        f"{routing}.RoutingContext.respondText": "exact",
        # `runLater`'s `() -> Unit` keeps the Route around it
        f"{host}.runLater": "exact",
    }
    # the parser writes the receiver before the call: the call the lambda is passed to
    path = "ktor-server-tests/jvm/test/io/ktor/tests/server/RoutingTest.kt"
    texts = [
        c.name for s in parse("kotlin", path, KTOR_RECEIVERS[path]).result.symbols for c in s.calls
    ]
    get = "{{{testApplication/(trailing)}routing/(trailing)}route/(String, trailing)}get"
    assert f"{get}/(String, trailing)" in texts
    assert "{: HeadersBuilder}append/(String, String)" not in texts  # `= HeadersBuilder()`
    assert "{= HeadersBuilder()}append/(String, String)" in texts


def test_scope_functions_give_this_and_it(resolved):
    calls = resolved("kotlin", KTOR_RECEIVERS)
    test = "ktor-server-tests.jvm.test.io.ktor.tests.server.RoutingTest.RoutingTest.testScopes"
    http = "ktor-http.common.src.io.ktor.http.HeadersBuilder"
    assert {dst: r for (src, dst), r in calls.items() if src == test} == {
        f"{http}.HeadersBuilder": "exact",  # the constructor, twice
        # `builder.apply { }`, `with(builder) { }`: `this` is the HeadersBuilder;
        # `builder.let { it... }`: `it` is; `headers { }`'s `HeadersBuilder.() -> Unit`
        f"{http}.HeadersBuilder.append": "exact",
        f"{http}.HeadersBuilder.respondText": "exact",  # `HeadersBuilder().also { it... }`
        f"{http}.headers": "exact",
    }


KTOR_LIBRARY_RECEIVERS = {
    "ktor-client-core/common/src/io/ktor/client/plugins/HttpRequestRetry.kt": """
        package io.ktor.client.plugins

        public class HttpRequestRetryConfig {
            public fun delay(millis: Long) {}
            public fun retryIf(block: HttpRequestRetryConfig.() -> Unit) {}
        }
        public class Sink {
            public fun writeText(text: String) {}
        }
    """,
    "ktor-client-tests/common/test/io/ktor/client/tests/RetryTest.kt": """
        package io.ktor.client.tests

        import kotlinx.coroutines.launch
        import io.ktor.client.plugins.*

        class RetryTest {
            fun testRetry(scope: CoroutineScope) {
                scope.launch { delay(10) }
                buildString { delay(20) }
                val file = File("a")
                file.apply { writeText("x") }
                val config = HttpRequestRetryConfig()
                config.retryIf { delay(30) }
            }
        }
    """,
}


def test_a_library_receiver_is_not_guessed_by_name(resolved):
    calls = resolved("kotlin", KTOR_LIBRARY_RECEIVERS)
    test = "ktor-client-tests.common.test.io.ktor.client.tests.RetryTest.RetryTest.testRetry"
    retry = "ktor-client-core.common.src.io.ktor.client.plugins.HttpRequestRetry"
    # `launch { }` (kotlinx's CoroutineScope), `buildString { }` (a StringBuilder), `File`'s
    # `apply { }`: their receivers are the library's; the repository's one `delay` and
    # `writeText` are not claimed by name. `retryIf`'s receiver is ours: its `delay` is.
    assert {dst: r for (src, dst), r in calls.items() if src == test} == {
        f"{retry}.HttpRequestRetryConfig": "exact",
        f"{retry}.HttpRequestRetryConfig.retryIf": "exact",
        f"{retry}.HttpRequestRetryConfig.delay": "exact",
    }


KTOR_GENERIC_RECEIVERS = {
    "ktor-server-core/common/src/io/ktor/server/application/Application.kt": """
        package io.ktor.server.application

        public open class Pipeline
        public class Application : Pipeline()
        public class Route
        public fun <P : Pipeline, B : Any> P.install(plugin: Any, configure: B.() -> Unit = {}) {}
        public class ChannelProvider(block: () -> Any)
        public class FormBuilder {
            public fun append(key: String, value: ChannelProvider) {}
            public fun append(key: String, value: ByteArray) {}
        }
        public fun Route.post(body: suspend Application.() -> Unit) {}
        public inline fun <reified R : Any> Route.post(crossinline body: suspend Application.(R) -> Unit) {}
    """,
    "ktor-server-core/common/src/io/ktor/server/testing/Host.kt": """
        package io.ktor.server.testing

        import io.ktor.server.application.*

        public class TestBuilder {
            public fun install(plugin: Any) {}
            public fun application(block: Application.() -> Unit) {}
            public fun route(block: Route.() -> Unit) {}
            public fun form(block: FormBuilder.() -> Unit) {}
        }
        public fun testApp(block: TestBuilder.() -> Unit) {}

        fun use() = testApp {
            application {
                install(CallLogging)
            }
            route {
                post { }
                post<Int> { }
            }
            form {
                append("a", ChannelProvider { 1 })
                append("b", ByteArray(3))
            }
        }
    """,
}


def test_generic_extensions_reified_overloads_and_constructor_arguments(resolved):
    calls = resolved("kotlin", KTOR_GENERIC_RECEIVERS)
    use = "ktor-server-core.common.src.io.ktor.server.testing.Host.use"
    app = "ktor-server-core.common.src.io.ktor.server.application.Application"
    host = "ktor-server-core.common.src.io.ktor.server.testing.Host.TestBuilder"
    assert {dst: r for (src, dst), r in calls.items() if src == use} == {
        f"{host.rsplit('.', 1)[0]}.testApp": "exact",
        f"{host}.application": "exact",
        f"{host}.route": "exact",
        f"{host}.form": "exact",
        # in `application { }` the Application's: the extension of its base's bound (P :
        # Pipeline), not the TestBuilder's member around it
        f"{app}.P.install": "exact",
        # `post { }` has no type argument: never the `<reified R>` overload; `post<Int> { }`
        # takes the generic one
        f"{app}.Route.post": "exact",
        f"{app}.Route.post#2": "exact",
        # the arguments' constructors tell the members apart
        f"{app}.FormBuilder.append": "exact",
        f"{app}.FormBuilder.append#2": "exact",
        f"{app}.ChannelProvider": "exact",
    }


# --- properties of receivers, calls on values, lambdas' parameters (issue 21, round 4) -----------

KTOR_PROPERTIES = {
    "ktor-server-core/common/src/io/ktor/server/routing/Routing.kt": """
        package io.ktor.server.routing

        import io.ktor.server.application.*

        public class RoutingCall(private val call: ApplicationCall) : ApplicationCall {
            override val attributes: Attributes get() = call.attributes
        }
        public class RoutingContext(
            public val call: RoutingCall
        )
        public typealias RoutingHandler = suspend RoutingContext.() -> Unit
        public class Route
        public fun Route.get(path: String, body: RoutingHandler): Route = this
    """,
    "ktor-server-core/common/src/io/ktor/server/application/Call.kt": """
        package io.ktor.server.application

        public interface ApplicationCall {
            public val attributes: Attributes
        }
        public class Attributes {
            public fun <T : Any> getOrNull(key: String): T? = null
        }
        public class Other {
            public fun respond(message: Any) {}
        }
    """,
    "ktor-server-core/common/src/io/ktor/server/response/Respond.kt": """
        package io.ktor.server.response

        import io.ktor.server.application.*

        public suspend inline fun <reified T : Any> ApplicationCall.respond(message: T) {}
        public suspend inline fun <reified T : Any> ApplicationCall.respond(status: Int, message: T) {}
    """,
    "ktor-client-core/common/src/io/ktor/client/HttpClient.kt": """
        package io.ktor.client

        public fun HttpClient(engine: String): HttpClient = HttpClient()
        public class HttpClient {
            public fun close() {}
        }
        public class HttpResponse
        public suspend fun HttpClient.get(urlString: String, block: () -> Unit = {}): HttpResponse = TODO()
        public suspend fun HttpClient.get(builder: HttpResponse): HttpResponse = TODO()
        public suspend fun HttpResponse.bodyAsText(): String = ""
    """,
    "ktor-server-test-host/common/src/io/ktor/server/testing/TestApplication.kt": """
        package io.ktor.server.testing

        import io.ktor.client.*

        public interface ClientProvider {
            public val client: HttpClient
        }
        public class ApplicationTestBuilder : ClientProvider {
            override var client: HttpClient
                get() = TODO()
                set(value) {}
        }
        public fun testApplication(block: suspend ApplicationTestBuilder.() -> Unit) {}
        public fun test(block: suspend (client: HttpClient) -> Unit) {}
    """,
    "ktor-server-tests/common/test/io/ktor/tests/RoutingTest.kt": """
        package io.ktor.tests

        import io.ktor.client.*
        import io.ktor.server.application.*
        import io.ktor.server.response.*
        import io.ktor.server.routing.*
        import io.ktor.server.testing.*

        class RoutingTest {
            fun Route.handlers(other: Other) {
                get("/") {
                    call.respond("OK")
                    call.attributes.getOrNull<String>("k")
                }
                get("/other") { other.respond("x") }
            }

            fun requests() = testApplication {
                client.get("/").bodyAsText()
                test { client -> client.close() }
            }
        }
    """,
}


def test_a_property_of_a_receiver_a_value_and_a_lambdas_parameter(resolved):
    calls = resolved("kotlin", KTOR_PROPERTIES)
    test = "ktor-server-tests.common.test.io.ktor.tests.RoutingTest.RoutingTest"
    handlers = {dst: r for (src, dst), r in calls.items() if src == f"{test}.Route.handlers"}
    respond = "ktor-server-core.common.src.io.ktor.server.response.Respond.ApplicationCall.respond"
    app = "ktor-server-core.common.src.io.ktor.server.application.Call"
    # `call` is the RoutingContext's property (the receiver `get`'s type alias gives), a
    # RoutingCall: the extension of its base ApplicationCall that takes one argument (T is
    # inferred from it: no type arguments needed); then a property path
    assert handlers[respond] == "exact"
    assert f"{respond}#2" not in handlers
    assert handlers[f"{app}.Attributes.getOrNull"] == "exact"
    # `other` is a parameter: its own type's respond, never the receiver's property
    assert handlers[f"{app}.Other.respond"] == "exact"
    requests = {dst: r for (src, dst), r in calls.items() if src == f"{test}.requests"}
    client = "ktor-client-core.common.src.io.ktor.client.HttpClient"
    assert requests == {
        "ktor-server-test-host.common.src.io.ktor.server.testing.TestApplication.testApplication": (
            "exact"
        ),
        "ktor-server-test-host.common.src.io.ktor.server.testing.TestApplication.test": "exact",
        # `client`: the builder's property, an HttpClient (the class, not the factory function
        # of its name); `get(String)` by its argument; `.bodyAsText()` on what `get` returns
        f"{client}.HttpClient.get": "exact",
        f"{client}.HttpResponse.bodyAsText": "exact",
        # `test { client -> }`: the lambda's parameter is the function type's HttpClient
        f"{client}.HttpClient#2.close": "exact",
    }


KTOR_LIBRARY_VALUES = {
    "ktor-io/common/src/io/ktor/utils/io/Channels.kt": """
        package io.ktor.utils.io

        public class Buffer
        public fun Buffer.clear() {}
        public class ByteWriteChannel
        public suspend fun ByteWriteChannel.writeFully(value: ByteArray) {}
        public suspend fun ByteWriteChannel.writeFully(value: Buffer) {}
        public fun bind(localAddress: String? = null, configure: () -> Unit = {}) {}
        public fun bind(hostname: String = "0.0.0.0", port: Int = 0, configure: () -> Unit = {}) {}
        public fun take(value: String) {}
        public fun take(value: Int) {}
    """,
    "ktor-io/common/test/io/ktor/utils/io/BaseTest.kt": """
        package io.ktor.utils.io.tests

        abstract class BaseTest {
            fun runTest(block: suspend () -> Unit) {}
        }
    """,
    "ktor-io/jvm/test/io/ktor/utils/io/ChannelTest.kt": """
        package io.ktor.utils.io

        import java.nio.ByteBuffer
        import kotlinx.coroutines.test.runTest

        class ChannelTest {
            fun write(channel: ByteWriteChannel, buffer: ByteBuffer, bytes: ByteArray) = runTest {
                channel.writeFully(bytes)
                buffer.clear()
                bind()
                take(listOf(1))
            }
        }
    """,
}


def test_extensions_by_arguments_library_values_and_library_functions(resolved):
    calls = resolved("kotlin", KTOR_LIBRARY_VALUES)
    io = "ktor-io.common.src.io.ktor.utils.io.Channels"
    write = {
        dst: r
        for (src, dst), r in calls.items()
        if src == "ktor-io.jvm.test.io.ktor.utils.io.ChannelTest.ChannelTest.write"
    }
    assert write == {
        # a typed receiver whose type lacks the method: its extension, chosen by the argument
        f"{io}.ByteWriteChannel.writeFully": "exact",
        # of two overloads needing default values, the one needing fewest
        f"{io}.bind": "exact",
        # not `Buffer.clear` (java.nio's ByteBuffer is no repository Buffer), not the test
        # base class's `runTest` (kotlinx.coroutines.test's), not `take(String)`/`take(Int)`
        # for a List argument
    }
    res = resolve(
        [
            parse_source(p, textwrap.dedent(c).lstrip("\n").encode(), "kotlin", module=module_id(p))
            for p, c in KTOR_LIBRARY_VALUES.items()
        ]
    )
    counts = res.by_language["kotlin"]
    # `buffer.clear()`, `runTest { }` and `listOf(1)` are the libraries' calls; `take(listOf(1))`
    # has no edge and no library to blame
    assert (counts["calls"], counts["resolved"], counts["external"]) == (6, 2, 3)


def test_an_object_argument_is_no_string(resolved):
    calls = resolved(
        "kotlin",
        {
            "ktor-client-core/common/src/io/ktor/client/HttpClientConfig.kt": """
                package io.ktor.client

                public interface HttpClientPlugin
                public object HttpTimeout : HttpClientPlugin
                public class HttpClientConfig {
                    public fun install(plugin: HttpClientPlugin, configure: () -> Unit = {}) {}
                    public fun install(key: String, block: () -> Unit) {}
                }
                fun configure(config: HttpClientConfig) {
                    config.install(HttpTimeout) { }
                }
            """,
        },
    )
    m = "ktor-client-core.common.src.io.ktor.client.HttpClientConfig"
    # `HttpTimeout` names an object: never the String key (before: both, an overload set)
    assert {dst: r for (src, dst), r in calls.items() if src == f"{m}.configure"} == {
        f"{m}.HttpClientConfig.install": "exact"
    }


def test_unique_name_guess_never_reaches_a_private_member_of_another_file(resolved):
    # moshi: `sourcePeek.require(n)` on an okio source (a library value the parser cannot type)
    # is not the one `require` of the repository, `JsonValueReader`'s private inline function
    calls = resolved(
        "kotlin",
        {
            "moshi/src/main/java/com/squareup/moshi/JsonValueReader.kt": """
                package com.squareup.moshi

                class JsonValueReader {
                    fun peekAll() = require(Token.NULL)
                    private fun require(expected: Token): Any = TODO()
                }
            """,
            "moshi/src/main/java/com/squareup/moshi/JsonUtf8Reader.kt": """
                package com.squareup.moshi

                class JsonUtf8Reader(private val source: BufferedSource) {
                    fun peekJson(copyFrom: JsonUtf8Reader) {
                        val sourcePeek = copyFrom.source.peek()
                        sourcePeek.require(copyFrom.size)
                    }
                }
            """,
        },
    )
    reader = "moshi.src.main.java.com.squareup.moshi"
    assert (
        calls[
            (
                f"{reader}.JsonValueReader.JsonValueReader.peekAll",
                f"{reader}.JsonValueReader.JsonValueReader.require",
            )
        ]
        == "exact"
    )
    assert not [dst for (src, dst) in calls if src.endswith("JsonUtf8Reader.peekJson")]


def test_a_private_top_level_function_is_its_own_files(resolved):
    # ktor: EmbeddedServer.posix.kt and EmbeddedServer.web.kt (one package) each define a
    # private `destroy`; each file's call is to its own, and a third file reaches neither
    files = {
        "ktor-server-core/posix/src/io/ktor/server/engine/EmbeddedServer.posix.kt": """
            package io.ktor.server.engine

            fun stopPosix(app: Application) { destroy(app) }
            private fun destroy(application: Application) {}
        """,
        "ktor-server-core/web/src/io/ktor/server/engine/EmbeddedServer.web.kt": """
            package io.ktor.server.engine

            fun stopWeb(app: Application) { destroy(app) }
            private fun destroy(application: Application) {}
        """,
        "ktor-server-core/jvm/src/io/ktor/server/engine/EmbeddedServerJvm.kt": """
            package io.ktor.server.engine

            fun stopJvm(app: Application) { destroy(app) }
        """,
    }
    calls = resolved("kotlin", files)
    engine = "ktor-server-core.{}.src.io.ktor.server.engine.{}"
    posix = engine.format("posix", "EmbeddedServer.posix")
    web = engine.format("web", "EmbeddedServer.web")
    assert {dst for (src, dst) in calls if src == f"{posix}.stopPosix"} == {f"{posix}.destroy"}
    assert {dst for (src, dst) in calls if src == f"{web}.stopWeb"} == {f"{web}.destroy"}
    jvm = engine.format("jvm", "EmbeddedServerJvm")
    assert not [dst for (src, dst) in calls if src == f"{jvm}.stopJvm"]


KTOR_UNDECIDED = {
    "ktor-io/common/src/io/ktor/utils/io/ByteWriteChannelOperations.kt": """
        package io.ktor.utils.io

        public class ByteWriteChannel
        public fun ByteWriteChannel.writeFully(value: ByteArray, startIndex: Int = 0, endIndex: Int = value.size) {}
        public fun ByteWriteChannel.writeFully(value: ByteBuffer) {}
    """,
    "ktor-server-core/common/src/io/ktor/server/response/ApplicationResponseFunctions.kt": """
        package io.ktor.server.response

        public class ApplicationCall
        public class ContentType
        public fun ApplicationCall.respondText(
            text: String,
            contentType: ContentType? = null,
            status: Int? = null,
        ) {}
        public fun ApplicationCall.respondText(
            contentType: ContentType? = null,
            status: Int? = null,
            provider: suspend () -> String,
        ) {}
    """,
    "ktor-server-core/common/src/io/ktor/server/routing/Route.kt": """
        package io.ktor.server.routing

        public class Route {
            public fun handle(path: String, body: Route.() -> Unit) {}
            public fun handle(path: Regex, body: Route.() -> Unit) {}
            public fun get(): Route = this
        }
    """,
    "ktor-server-tests/common/test/io/ktor/tests/UseTest.kt": """
        package io.ktor.tests

        import io.ktor.utils.io.*
        import io.ktor.server.response.*
        import io.ktor.server.routing.*

        class UseTest {
            fun write(channel: ByteWriteChannel, bytes: ByteArray) {
                channel.writeFully(loadBytes())
                channel.writeFully(bytes)
                channel.writeFully("a".repeat(3).encodeToByteArray())
            }
            fun respond(call: ApplicationCall, message: String) {
                call.respondText(message)
            }
            fun routes(route: Route) {
                route.handle(pathOf()) { get() }
            }
        }
    """,
}


def test_overloads_the_arguments_cannot_decide_make_no_edge(resolved):
    calls = resolved("kotlin", KTOR_UNDECIDED)
    use = "ktor-server-tests.common.test.io.ktor.tests.UseTest.UseTest"
    io = "ktor-io.common.src.io.ktor.utils.io.ByteWriteChannelOperations.ByteWriteChannel"
    write = {dst: r for (src, dst), r in calls.items() if src == f"{use}.write"}
    # `writeFully(loadBytes())`: a ByteArray or a ByteBuffer, not known which: no edge (the
    # rule "the one that needs no default value" holds only among members that take the
    # argument); `writeFully(bytes)` and `.encodeToByteArray()`: a ByteArray
    assert write == {f"{io}.writeFully": "exact"}
    # `respondText(message)`: a positional argument fills `text`; the other member would leave
    # its `provider` without a value
    respond = {dst for (src, dst) in calls if src == f"{use}.respond"}
    fns = "ktor-server-core.common.src.io.ktor.server.response.ApplicationResponseFunctions"
    assert respond == {f"{fns}.ApplicationCall.respondText"}
    # `route.handle(pathOf()) { get() }`: either `handle`, no edge; both give the lambda a
    # Route receiver, so `get()` is still Route's
    route = "ktor-server-core.common.src.io.ktor.server.routing.Route.Route"
    routes = {dst for (src, dst) in calls if src == f"{use}.routes"}
    assert routes == {f"{route}.get"}


def test_arguments_typed_by_objects_values_and_members(resolved):
    files = {
        "ktor-client-core/common/src/io/ktor/client/HttpClient.kt": """
            package io.ktor.client

            public interface HttpClientEngine
            public interface HttpClientEngineFactory<T>
            public interface HttpClientPlugin<T>
            public interface ClientPlugin<T> : HttpClientPlugin<T>
            public class HttpClient
            public fun HttpClient(engineFactory: HttpClientEngineFactory<*>, block: () -> Unit = {}): HttpClient = TODO()
            public fun HttpClient(engine: HttpClientEngine, block: () -> Unit = {}): HttpClient = TODO()
            public class HttpClientConfig {
                public fun install(plugin: HttpClientPlugin<*>) {}
                public fun install(client: HttpClient) {}
            }
            @OptIn(InternalAPI::class)
            public val SSE: ClientPlugin<Unit> = createClientPlugin("SSE")
            public data class HttpStatusCode(val value: Int) {
                public companion object {
                    public val OK: HttpStatusCode = HttpStatusCode(200)
                }
            }
            public class CloseReason(val code: Short, val message: String) {
                public constructor(code: Codes, message: String) : this(code.code, message)
                public enum class Codes(val code: Short) { NORMAL(1000) }
            }
            public fun respond(status: HttpStatusCode) {}
            public fun respond(text: String) {}
        """,
        "ktor-client-cio/jvm/src/io/ktor/client/engine/cio/CIO.kt": """
            package io.ktor.client.engine.cio

            import io.ktor.client.*

            public data object CIO : HttpClientEngineFactory<Unit>
            public object OkHttp : HttpClientEngineFactory<Unit>
        """,
        "ktor-client-tests/common/test/io/ktor/client/tests/ClientTest.kt": """
            package io.ktor.client.tests

            import io.ktor.client.*
            import io.ktor.client.engine.cio.*

            class ClientTest {
                fun clients(config: HttpClientConfig) {
                    HttpClient(CIO)
                    HttpClient(OkHttp)
                    config.install(SSE)
                    respond(HttpStatusCode.OK)
                    CloseReason(CloseReason.Codes.NORMAL, "bye")
                }
            }
        """,
    }
    calls = resolved("kotlin", files)
    core = "ktor-client-core.common.src.io.ktor.client.HttpClient"
    test = "ktor-client-tests.common.test.io.ktor.client.tests.ClientTest.ClientTest.clients"
    assert {dst: r for (src, dst), r in calls.items() if src == test} == {
        # an object of the repository (`CIO`, `OkHttp`) is an instance of its type
        f"{core}.HttpClient": "exact",
        # a top-level value by its declared type (`val SSE: ClientPlugin<Unit>`)
        f"{core}.HttpClientConfig.install": "exact",
        # a companion's property by its declared type; an enum's entry is of the enum
        f"{core}.respond": "exact",
        f"{core}.CloseReason.constructor": "exact",
    }


def test_a_type_alias_or_factory_of_a_library_type_is_a_library_value(resolved):
    # ktor: `typealias BytePacketBuilder = Sink` (kotlinx.io's), annotated over several lines;
    # `BytePacketBuilder().writeByte(b)` is Sink's, never the repository's one
    # `ByteWriteChannel.writeByte` by name; a factory returning a library type likewise
    files = {
        "ktor-io/common/src/io/ktor/utils/io/core/BytePacketBuilder.kt": """
            package io.ktor.utils.io.core

            import kotlinx.io.*

            @Deprecated(
                "Use Sink instead",
                level = DeprecationLevel.WARNING
            )
            public typealias BytePacketBuilder = Sink

            @Suppress("FunctionName")
            public fun BytePacketBuilder(): Sink = kotlinx.io.Buffer()

            public fun makeSink(): Sink = kotlinx.io.Buffer()
        """,
        "ktor-io/common/src/io/ktor/utils/io/ByteWriteChannelOperations.kt": """
            package io.ktor.utils.io

            public class ByteWriteChannel
            public suspend fun ByteWriteChannel.writeByte(value: Byte) {}
            public suspend fun ByteWriteChannel.flushAll() {}
        """,
        "ktor-http-cio/jvm/src/io/ktor/http/cio/RequestResponseBuilder.kt": """
            package io.ktor.http.cio

            import io.ktor.utils.io.*
            import io.ktor.utils.io.core.*

            public class RequestResponseBuilder {
                private val packet = BytePacketBuilder()

                public fun emptyLine(other: ByteWriteChannel) {
                    packet.writeByte(13)
                    val sink = makeSink()
                    sink.flushAll()
                }
            }
        """,
    }
    calls = resolved("kotlin", files)
    src = "ktor-http-cio.jvm.src.io.ktor.http.cio.RequestResponseBuilder.RequestResponseBuilder"
    core = "ktor-io.common.src.io.ktor.utils.io.core.BytePacketBuilder"
    assert {dst for (s, dst) in calls if s == f"{src}.emptyLine"} == {f"{core}.makeSink"}


def test_a_class_that_cannot_take_the_arguments_leaves_them_to_its_factories(resolved):
    # ktor: `GMTDate()` is `expect fun GMTDate(timestamp: Long? = null)`, not the data class
    # whose constructor needs every field; the `actual`s per platform are what each builds
    files = {
        "ktor-utils/common/src/io/ktor/util/date/Date.kt": """
            package io.ktor.util.date

            public data class GMTDate(val seconds: Int, val minutes: Int, val year: Int)
            public expect fun GMTDate(timestamp: Long? = null): GMTDate
        """,
        "ktor-utils/jvm/src/io/ktor/util/date/DateJvm.kt": """
            package io.ktor.util.date

            public actual fun GMTDate(timestamp: Long?): GMTDate = TODO()
        """,
        "ktor-utils/posix/src/io/ktor/util/date/DateNative.kt": """
            package io.ktor.util.date

            public actual fun GMTDate(timestamp: Long?): GMTDate = TODO()
        """,
        "ktor-client-okhttp/jvm/src/io/ktor/client/engine/okhttp/OkHttpEngine.kt": """
            package io.ktor.client.engine.okhttp

            import io.ktor.util.date.*

            class OkHttpEngine {
                fun execute() {
                    val requestTime = GMTDate()
                    val copy = GMTDate(1, 2, 2024)
                }
            }
        """,
    }
    calls = resolved("kotlin", files)
    date = "ktor-utils.common.src.io.ktor.util.date.Date"
    src = "ktor-client-okhttp.jvm.src.io.ktor.client.engine.okhttp.OkHttpEngine.OkHttpEngine"
    assert {dst: r for (s, dst), r in calls.items() if s == f"{src}.execute"} == {
        f"{date}.GMTDate#2": "exact",  # the expect declaration, not each actual
        f"{date}.GMTDate": "exact",  # three arguments: the class
    }


def test_known_arguments_decide_when_the_unknown_ones_fit_every_member_alike(resolved):
    # moshi: `elementAdapter.toJson(writer, element)`: `element` is of no written type, but
    # both members take it as a `T?`; the JsonWriter decides. ktor: a named argument's type
    # (`status = HttpStatusCode.OK`) and an elvis or `if` whose sides agree are typed too
    files = {
        "moshi/src/main/java/com/squareup/moshi/JsonAdapter.kt": """
            package com.squareup.moshi

            public abstract class JsonWriter
            public abstract class JsonAdapter<T> {
                public abstract fun toJson(writer: JsonWriter, value: T?)
                public fun toJson(sink: BufferedSink, value: T?) {}
            }
            public data class HttpStatusCode(val value: Int) {
                public companion object {
                    public val OK: HttpStatusCode = HttpStatusCode(200)
                }
            }
            public fun respond(text: String, status: HttpStatusCode = HttpStatusCode.OK) {}
            public fun respond(text: String, status: Int = 200) {}
            public fun label(name: String) {}
            public fun label(name: Int) {}
        """,
        "moshi/src/main/java/com/squareup/moshi/ListAdapter.kt": """
            package com.squareup.moshi

            class ListAdapter(private val elementAdapter: JsonAdapter<Any?>) {
                fun write(writer: JsonWriter, values: List<Any?>, name: String?, flag: Boolean) {
                    for (element in values) {
                        elementAdapter.toJson(writer, element)
                    }
                    respond("a", status = HttpStatusCode.OK)
                    label(name ?: "none")
                    label(if (flag) "yes" else "no")
                }
            }
        """,
    }
    calls = resolved("kotlin", files)
    m = "moshi.src.main.java.com.squareup.moshi"
    write = {dst for (s, dst) in calls if s == f"{m}.ListAdapter.ListAdapter.write"}
    assert write == {
        f"{m}.JsonAdapter.JsonAdapter.toJson",
        f"{m}.JsonAdapter.respond",
        f"{m}.JsonAdapter.label",
    }


def test_library_types_through_wildcard_imports_and_calls_by_full_name(resolved):
    # ktor: `input: Source` (kotlinx.io's, `import kotlinx.io.*`) takes kotlinx.io's
    # readByteArray, not the repository's one `ByteReadChannel.readByteArray` by name; and
    # `kotlin.time.Clock.System.now()` is the standard library's, not a repository `Clock.now`
    files = {
        "ktor-io/common/src/io/ktor/utils/io/ByteReadChannelOperations.kt": """
            package io.ktor.utils.io

            public class ByteReadChannel
            public suspend fun ByteReadChannel.readByteArray(count: Int): ByteArray = TODO()
        """,
        "ktor-server-default-headers/common/src/io/ktor/server/plugins/defaultheaders/DefaultHeaders.kt": """
            package io.ktor.server.plugins.defaultheaders

            public class DefaultHeadersConfig {
                public fun interface Clock {
                    public fun now(): Long
                }
            }
        """,
        "ktor-io/js/src/io/ktor/utils/io/charsets/Charset.js.kt": """
            package io.ktor.utils.io.charsets

            import io.ktor.utils.io.*
            import io.ktor.server.plugins.defaultheaders.*
            import kotlinx.io.*

            public fun <T> decode(input: Source, count: Int, item: T): String {
                val array = input.readByteArray(count)
                val started = kotlin.time.Clock.System.now()
                return ""
            }
        """,
    }
    calls = resolved("kotlin", files)
    assert not [d for (s, d) in calls if s.endswith("Charset.js.decode")]
