import textwrap

from codebot.core.model import Import, Parameter
from codebot.graph.resolvers import NameTable, resolver_class
from codebot.parse.extract import module_id, parse_source

PATH = "src/main/java/com/acme/orders/OrderService.java"
M = "src.main.java.com.acme.orders.OrderService"

SOURCE = """
package com.acme.orders;

import java.util.List;
import java.util.concurrent.*;
import static java.util.Objects.requireNonNull;
import static org.junit.Assert.*;

/**
 * Places and looks up orders.
 *
 * @author ops
 */
@Service
@Transactional(readOnly = true)
public class OrderService extends BaseService<Order> implements OrderApi, AutoCloseable {
    private final OrderRepository repo;
    private final List<Listener> listeners = new ArrayList<>();

    /** Creates the service. */
    public OrderService(OrderRepository repo) {
        super(repo);
        this.repo = requireNonNull(repo);
    }

    public OrderService() {
        this(new InMemoryRepository());
    }

    /**
     * Places an order.
     *
     * @param id the order id
     * @return the saved order
     */
    @Override
    public <T> List<Order> place(final String id, int quantity, String... tags) throws IOException {
        Order order = new Order(id, quantity);
        this.repo.save(order);
        return repo.findById(id).map(OrderService::copy).orElseThrow();
    }

    // Places a batch.
    public List<Order> place(List<String> ids) {
        return ids.stream().map(this::place).toList();
    }

    static Order copy(Order o) {
        return new com.acme.orders.Order(o);
    }

    @Override
    public void close() {
        super.close();
    }

    static class Builder {
        private OrderRepository repo;

        Builder repo(OrderRepository repo) {
            this.repo = repo;
            return this;
        }

        class Step {
            void run() {
                Builder.this.repo(null);
            }
        }
    }

    enum Status implements Labelled {
        OPEN, CLOSED;

        String label() {
            return name().toLowerCase();
        }
    }

    record Line(String sku, @Positive int count) implements Comparable<Line> {
        Line {
            check(count);
        }

        int total(int price) {
            return count * price;
        }
    }

    interface Listener extends EventListener, Serializable {
        void onPlaced(Order order);

        default int priority() {
            return 0;
        }
    }
}
"""


def test_ids_kinds_and_lines(parse):
    p = parse("java", PATH, SOURCE)
    assert p.ids == [
        f"{M}.OrderService",
        f"{M}.OrderService.OrderService",
        f"{M}.OrderService.OrderService#2",
        f"{M}.OrderService.place",
        f"{M}.OrderService.place#2",
        f"{M}.OrderService.copy",
        f"{M}.OrderService.close",
        f"{M}.OrderService.Builder",
        f"{M}.OrderService.Builder.repo",
        f"{M}.OrderService.Builder.Step",
        f"{M}.OrderService.Builder.Step.run",
        f"{M}.OrderService.Status",
        f"{M}.OrderService.Status.label",
        f"{M}.OrderService.Line",
        f"{M}.OrderService.Line.Line",
        f"{M}.OrderService.Line.total",
        f"{M}.OrderService.Listener",
        f"{M}.OrderService.Listener.onPlaced",
        f"{M}.OrderService.Listener.priority",
    ]
    spans = {s.id: (s.kind, s.start_line, s.end_line, s.class_name) for s in p.result.symbols}
    assert spans[f"{M}.OrderService"] == ("class", 13, 96, None)
    assert spans[f"{M}.OrderService.place"] == ("method", 35, 40, "OrderService")
    assert spans[f"{M}.OrderService.Builder"] == ("class", 56, 69, "OrderService")
    assert spans[f"{M}.OrderService.Builder.repo"] == ("method", 59, 62, "Builder")
    assert spans[f"{M}.OrderService.Builder.Step.run"] == ("method", 65, 67, "Step")
    assert spans[f"{M}.OrderService.Status"] == ("enum", 71, 77, "OrderService")
    assert spans[f"{M}.OrderService.Status.label"] == ("method", 74, 76, "Status")
    assert spans[f"{M}.OrderService.Line"] == ("class", 79, 87, "OrderService")
    assert spans[f"{M}.OrderService.Line.Line"] == ("method", 80, 82, "Line")
    assert spans[f"{M}.OrderService.Listener"] == ("interface", 89, 95, "OrderService")
    assert spans[f"{M}.OrderService.Listener.onPlaced"] == ("method", 90, 90, "Listener")
    assert p[f"{M}.OrderService.Builder.Step.run"].parent == f"{M}.OrderService.Builder.Step"


def test_class_doc_annotations_bases(parse):
    p = parse("java", PATH, SOURCE)
    cls = p[f"{M}.OrderService"]
    assert cls.docstring == "Places and looks up orders.\n\n@author ops"
    assert cls.decorators == ("Service", "Transactional(readOnly = true)")
    assert cls.bases == ("BaseService<Order>", "OrderApi", "AutoCloseable")
    assert cls.signature == (
        "@Service @Transactional(readOnly = true) public class OrderService "
        "extends BaseService<Order> implements OrderApi, AutoCloseable"
    )
    assert p[f"{M}.OrderService.Status"].bases == ("Labelled",)
    assert p[f"{M}.OrderService.Line"].bases == ("Comparable<Line>",)
    assert p[f"{M}.OrderService.Listener"].bases == ("EventListener", "Serializable")


def test_methods_parameters_returns_docs(parse):
    p = parse("java", PATH, SOURCE)
    place = p[f"{M}.OrderService.place"]
    assert place.parameters == (
        Parameter("id", "String"),
        Parameter("quantity", "int"),
        Parameter("tags", "String..."),
    )
    assert place.return_type == "List<Order>"
    assert place.decorators == ("Override",)
    assert place.docstring == (
        "Places an order.\n\n@param id the order id\n@return the saved order"
    )
    assert place.signature == (
        "@Override public <T> List<Order> place(final String id, int quantity, String... tags) "
        "throws IOException"
    )
    batch = p[f"{M}.OrderService.place#2"]
    assert batch.parameters == (Parameter("ids", "List<String>"),)
    assert batch.docstring == "Places a batch."
    ctor = p[f"{M}.OrderService.OrderService"]
    assert (ctor.kind, ctor.return_type, ctor.docstring) == ("method", None, "Creates the service.")
    assert ctor.parameters == (Parameter("repo", "OrderRepository"),)
    assert p[f"{M}.OrderService.OrderService#2"].parameters == ()
    on_placed = p[f"{M}.OrderService.Listener.onPlaced"]
    assert (on_placed.signature, on_placed.return_type) == ("void onPlaced(Order order)", "void")
    assert p[f"{M}.OrderService.Line.total"].parameters == (Parameter("price", "int"),)


def test_calls(parse):
    p = parse("java", PATH, SOURCE)
    # Each call ends with its arguments' types as a reader sees them (`?` where not at a
    # glance), for the resolver to choose among overloads.
    assert p.calls(f"{M}.OrderService.OrderService") == [
        "super/(OrderRepository)",
        "requireNonNull/(OrderRepository)",
    ]
    assert p.calls(f"{M}.OrderService.OrderService#2") == [
        "this/(InMemoryRepository)",
        "InMemoryRepository/()",
    ]
    # With a plain receiver, or a call, the call reads as written (`@call.expr`).
    # A receiver declared with a type (a field, a local, a parameter) carries it.
    assert p.calls(f"{M}.OrderService.place") == [
        "Order/(String, int)",
        "(this.repo: OrderRepository).save/(Order)",
        "(repo: OrderRepository).findById/(String)",
        "(repo: OrderRepository).findById(id).map/(lambda)",
        "OrderService::copy",
        "(repo: OrderRepository).findById(id).map(OrderService::copy).orElseThrow/()",
    ]
    assert p.calls(f"{M}.OrderService.place#2") == [
        "(ids: List<String>).stream/()",
        "(ids: List<String>).stream().map/(lambda)",
        "this::place",
        "(ids: List<String>).stream().map(this::place).toList/()",
    ]
    assert p.calls(f"{M}.OrderService.copy") == ["com.acme.orders.Order/(Order)"]
    assert p.calls(f"{M}.OrderService.close") == ["super.close/()"]
    assert p.calls(f"{M}.OrderService.Builder.Step.run") == ["Builder.this.repo/(null)"]
    assert p.calls(f"{M}.OrderService.Line.Line") == ["check/(?)"]
    # A field initializer's call belongs to the class.
    assert p.calls(f"{M}.OrderService") == ["ArrayList/()"]


def test_imports(parse):
    p = parse("java", PATH, SOURCE)
    assert p.imports == [
        Import("java.util", "List", line=3),
        Import("java.util.concurrent", "*", line=4),
        Import("java.util.Objects", "requireNonNull", line=5),
        Import("org.junit.Assert", "*", line=6),
    ]


def test_annotation_type_and_anonymous_class(parse):
    code = """
    @Retention(RUNTIME)
    public @interface Audited {
        String value() default "";
    }

    class Jobs {
        Runnable job() {
            return new Runnable() {
                @Override
                public void run() { work(); }
            };
        }
    }
    """
    p = parse("java", "Audited.java", code)
    assert p.ids == [
        "Audited.Audited",
        "Audited.Audited.value",
        "Audited.Jobs",
        "Audited.Jobs.job",
        "Audited.Jobs.job.run",
    ]
    assert p["Audited.Audited"].kind == "interface"
    assert p["Audited.Audited"].decorators == ("Retention(RUNTIME)",)
    value = p["Audited.Audited.value"]
    assert (value.kind, value.return_type, value.signature) == (
        "method",
        "String",
        'String value() default ""',
    )
    run = p["Audited.Jobs.job.run"]
    assert (run.kind, run.class_name, run.parent) == ("function", None, "Audited.Jobs.job")
    assert p.calls("Audited.Jobs.job") == ["Runnable/()"]
    assert p.calls("Audited.Jobs.job.run") == ["work/()"]


# --- typed receivers: the type a reader sees at a glance ---------------------------------------

GSON = {
    "src/com/google/gson/internal/bind/JsonTreeReader.java": """
        package com.google.gson.internal.bind;
        public final class JsonTreeReader {
            public JsonTreeReader(Object element) {}
            public boolean hasNext() { return true; }
            public String nextString() { return ""; }
        }
    """,
    "src/com/google/gson/reflect/TypeToken.java": """
        package com.google.gson.reflect;
        public class TypeToken<T> {
            public boolean isAssignableFrom(Class<?> cls) { return false; }
        }
    """,
    "src/com/google/gson/Gson.java": """
        package com.google.gson;
        import com.google.gson.internal.bind.JsonTreeReader;
        import com.google.gson.reflect.TypeToken;
        public final class Gson {
            public String fromTree(Object tree) {
                JsonTreeReader reader = new JsonTreeReader(tree);
                while (reader.hasNext()) {
                    var other = new JsonTreeReader(tree);
                    return other.nextString();
                }
                return null;
            }
            public String toJson(Object src) { return ""; }
            static boolean assignable(Class<?> baseType, Class<?> raw) {
                return baseType.isAssignableFrom(raw);
            }
        }
    """,
    "src/com/google/gson/Users.java": """
        package com.google.gson;
        public class Users {
            private final Gson gson;
            Users(Gson gson) { this.gson = gson; }
            String save(Object o) {
                this.gson.toJson(o);
                return gson.toJson(o);
            }
        }
    """,
}


def test_typed_receivers_locals_var_new_and_fields(parse, resolved):
    p = parse("java", "src/com/google/gson/Gson.java", GSON["src/com/google/gson/Gson.java"])
    assert p.calls("src.com.google.gson.Gson.Gson.fromTree")[:3] == [
        "JsonTreeReader/(Object)",
        "(reader = new JsonTreeReader()).hasNext/()",  # exactly a JsonTreeReader
        "JsonTreeReader/(Object)",
    ]
    calls = resolved("java", GSON)
    gson, reader = "src.com.google.gson.Gson.Gson", "src.com.google.gson.internal.bind"
    reader += ".JsonTreeReader.JsonTreeReader"
    assert calls[(f"{gson}.fromTree", f"{reader}.hasNext")] == "exact"  # `JsonTreeReader reader`
    assert calls[(f"{gson}.fromTree", f"{reader}.nextString")] == "exact"  # `var x = new T()`
    # a field, read as `this.gson` and as plain `gson`
    assert calls[("src.com.google.gson.Users.Users.save", f"{gson}.toJson")] == "exact"


def test_typed_receiver_of_a_library_type_is_external(resolved):
    calls = resolved("java", GSON)
    # `Class<?> baseType`: java.lang.Class's method, not the repository's only `isAssignableFrom`
    token = "src.com.google.gson.reflect.TypeToken.TypeToken.isAssignableFrom"
    assert ("src.com.google.gson.Gson.Gson.assignable", token) not in calls


# --- constants (issue 21) ------------------------------------------------------------------------

NAMES = """
package com.google.gson;
public final class Gson {
  static final boolean DEFAULT_JSON_NON_EXECUTABLE = false;
  private static final String JSON_NON_EXECUTABLE_PREFIX = ")]}'\\n";
  final static int MAX = 10;
  private final ThreadLocal<Map<TypeToken<?>, TypeAdapter<?>>> threadLocalAdapterResults = new ThreadLocal<>();
  static int counter = 0;
  interface Keys { String NAME = "name"; }
  void f() { final int local = 1; }
}
"""


def test_static_final_fields_are_constants(parse):
    p = parse("java", "gson/src/main/java/com/google/gson/Gson.java", NAMES)
    g = "gson.src.main.java.com.google.gson.Gson.Gson"
    kinds = {s.id: s.kind for s in p.result.symbols if s.kind in ("constant", "variable")}
    assert kinds == {
        f"{g}.DEFAULT_JSON_NON_EXECUTABLE": "constant",
        f"{g}.JSON_NON_EXECUTABLE_PREFIX": "constant",
        f"{g}.MAX": "constant",
        f"{g}.Keys.NAME": "constant",  # an interface's fields are static final
    }
    field = p[f"{g}.DEFAULT_JSON_NON_EXECUTABLE"]
    assert (field.class_name, field.parent, field.start_line) == ("Gson", g, 3)


def test_a_static_final_field_calls_what_its_initializer_calls(resolved):
    edges = resolved(
        "java",
        {
            "src/Gson.java": """
            public final class Gson {
              static final Gson DEFAULT = create();
              static Gson create() { return new Gson(); }
              Gson copy() { return DEFAULT; }
            }
            """,
        },
    )
    assert ("src.Gson.Gson.DEFAULT", "src.Gson.Gson.create") in edges
    assert not any(dst == "src.Gson.Gson.DEFAULT" for _, dst in edges)


# --- overloads: chosen by arity, then by the argument types written ----------------------------

OVERLOADS = {
    # gson's TypeToken (trimmed): two static `get`s, told apart by their parameter's type
    "src/com/google/gson/reflect/TypeToken.java": """
        package com.google.gson.reflect;
        import java.lang.reflect.Type;
        public class TypeToken<T> {
            TypeToken(Type type) {}
            TypeToken() {}
            public static TypeToken<?> get(Type type) { return new TypeToken<>(type); }
            public static <T> TypeToken<T> get(Class<T> type) { return new TypeToken<>(type); }
            public static TypeToken<?> getParameterized(Type rawType, Type... typeArguments) {
                return null;
            }
        }
    """,
    # gson's JsonReaderTest (trimmed): a test method and a helper of the same name
    "src/com/google/gson/stream/JsonReaderTest.java": """
        package com.google.gson.stream;
        import com.google.gson.reflect.TypeToken;
        import java.lang.reflect.Type;
        public final class JsonReaderTest {
            public void testFailWithPosition() throws IOException {
                testFailWithPosition("Expected value at line 6 column 5 path $[1]", "[\\n\\"a\\",}]");
            }
            private static void testFailWithPosition(String message, String json) {
                JsonReader reader = new JsonReader(reader(json));
                reader.skip(1);
                reader.skip(json);
                reader.skip(message, 2, 3);
            }
            static Object reader(String s) { return null; }
            void tokens(Type type, Object unknown, String name) {
                TypeToken.get(JsonReader.class);
                TypeToken.get(type);
                TypeToken.get(unknown.getType());
                TypeToken.getParameterized(type, type, type);
                new JsonWriter(name);
                new JsonWriter(reader(name));
                new JsonWriter();
            }
        }
    """,
    "src/com/google/gson/stream/JsonReader.java": """
        package com.google.gson.stream;
        public class JsonReader {
            public JsonReader(Object in) {}
            public void skip(int n) {}
            public void skip(String name) {}
            public void skip(String name, int... counts) {}
        }
    """,
    "src/com/google/gson/stream/JsonWriter.java": """
        package com.google.gson.stream;
        public class JsonWriter {
            public JsonWriter() {}
            public JsonWriter(String indent) {}
            public JsonWriter(StringBuilder out) {}
        }
    """,
    # gson's ReflectionAccessFilter (trimmed): constants of anonymous classes repeat `check`
    "src/com/google/gson/ReflectionAccessFilter.java": """
        package com.google.gson;
        public interface ReflectionAccessFilter {
            FilterResult check(Class<?> rawClass);
            ReflectionAccessFilter BLOCK_ALL = new ReflectionAccessFilter() {
                @Override public FilterResult check(Class<?> rawClass) { return null; }
            };
            ReflectionAccessFilter ALLOW_ALL = new ReflectionAccessFilter() {
                @Override public FilterResult check(Class<?> rawClass) { return null; }
            };
        }
    """,
    "src/com/google/gson/Helper.java": """
        package com.google.gson;
        public class Helper {
            static Object filter(ReflectionAccessFilter filter, Class<?> c) {
                return filter.check(c);
            }
        }
    """,
}


def _by_line(files: dict[str, str], src: str) -> set[tuple[int, str, str]]:
    """Each call of ``src`` as the resolver answers it (the graph keeps one edge per callee):
    (line, callee's type and name, resolution)."""
    parsed = [
        parse_source(p, textwrap.dedent(c).lstrip("\n").encode(), "java", module=module_id(p))
        for p, c in files.items()
    ]
    index = NameTable(parsed)
    r = resolver_class("jvm")(index, parsed)
    r.prepare()
    sym = index.by_id[src]
    ctx = r.context(sym, index.file_of[src])
    out = set()
    for call in sym.calls:
        found = r.resolve_call(ctx, call.name)
        if isinstance(found, list):
            out |= {(call.line, ".".join(dst.split(".")[-2:]), res) for dst, res in found}
    return out


def test_overloads_by_arity_and_argument_types(resolved):
    calls = resolved("java", OVERLOADS)
    test = "src.com.google.gson.stream.JsonReaderTest.JsonReaderTest"
    reader = "src.com.google.gson.stream.JsonReader.JsonReader"
    assert _by_line(OVERLOADS, f"{test}.tokens") == {
        # `get(X.class)`: a Class fits `get(Type)` too, but `get(Class<T>)` is more specific
        (16, "TypeToken.get#2", "exact"),
        (17, "TypeToken.get", "exact"),  # `get(type)`, `Type type`: only `get(Type)` takes a Type
        # `get(unknown.getType())`: either, not known which: no edge (one would be wrong)
        (19, "TypeToken.getParameterized", "exact"),  # varargs
        (20, "JsonWriter.JsonWriter#2", "exact"),  # `new JsonWriter(name)`, a String
        # `new JsonWriter(reader(name))`: (String) or (StringBuilder), not known which: none
        (21, "JsonReaderTest.reader", "unique_name"),  # a bare name in Java: by name in the class
        (22, "JsonWriter.JsonWriter", "exact"),  # `new JsonWriter()`
    }

    # the two-argument helper, not the test method itself (no self-call)
    pair = (f"{test}.testFailWithPosition", f"{test}.testFailWithPosition#2")
    assert calls[pair] == "unique_name"  # a bare name in Java: by name in the class
    assert (f"{test}.testFailWithPosition", f"{test}.testFailWithPosition") not in calls
    helper = {
        dst: res for (src, dst), res in calls.items() if src == f"{test}.testFailWithPosition#2"
    }
    assert helper == {
        f"{reader}.JsonReader": "exact",
        f"{reader}.skip": "exact",  # skip(1)
        f"{reader}.skip#2": "exact",  # skip(json), a String
        f"{reader}.skip#3": "exact",  # skip(message, 2, 3): the varargs one
        f"{test}.reader": "unique_name",  # a bare name in Java
    }

    # anonymous classes repeating `check(Class)`: no overload set, the interface's method
    helper_calls = {dst: res for (src, dst), res in calls.items() if "Helper" in src}
    assert helper_calls == {
        "src.com.google.gson.ReflectionAccessFilter.ReflectionAccessFilter.check": "exact"
    }


def test_overload_with_one_argument_type_unknown_makes_no_edge(resolved):
    calls = resolved(
        "java",
        {
            "src/a/Gson.java": """
                package a;
                public final class Gson {
                    public String toJson(Object src) { return toJson(src, src.getClass()); }
                    public String toJson(Object src, Type typeOfSrc) { return ""; }
                    public String toJson(JsonElement jsonElement) { return ""; }
                    public void toJson(JsonElement jsonElement, Appendable writer) {}
                }
            """,
            "src/a/JsonElement.java": """
                package a;
                public abstract class JsonElement {}
            """,
            "src/a/Use.java": """
                package a;
                class Use {
                    void run(Gson gson, Object value, JsonElement tree, String s) {
                        gson.toJson(value);
                        gson.toJson(tree);
                        gson.toJson(s);
                    }
                    void later(Gson gson) {
                        gson.toJson(compute());
                    }
                    Object compute() { return null; }
                }
            """,
        },
    )
    gson = "src.a.Gson.Gson"
    run = {dst: res for (src, dst), res in calls.items() if src == "src.a.Use.Use.run"}
    # `toJson(value)` (an Object) fits only `toJson(Object)`; `toJson(tree)` both one-argument
    # members, the JsonElement one most specific; `toJson(s)`: a String is no JsonElement
    assert run == {f"{gson}.toJson": "exact", f"{gson}.toJson#3": "exact"}
    later = {dst: res for (src, dst), res in calls.items() if src == "src.a.Use.Use.later"}
    # `toJson(compute())`, an Object: `toJson(Object)` or `toJson(JsonElement)` as far as the
    # parser can tell; not known which, so no edge (one of the two would be wrong)
    assert later == {
        "src.a.Use.Use.compute": "unique_name",  # Java's bare names: by name in the class
    }
    # `toJson(src, src.getClass())` inside `toJson(Object)`: the two-argument member that
    # takes a Type (getClass() is a Class), not `toJson(JsonElement, Appendable)`
    inner = {dst for (src, dst) in calls if src == f"{gson}.toJson"}
    assert inner == {f"{gson}.toJson#2"}


def test_one_package_over_main_and_test_source_roots(resolved):
    # gson's layout: a test in `src/test/java/com/google/gson/stream/` uses `JsonReader` of
    # `src/main/java/com/google/gson/stream/` without an import (one package)
    calls = resolved(
        "java",
        {
            "gson/src/main/java/com/google/gson/stream/JsonReader.java": """
                package com.google.gson.stream;
                public class JsonReader {
                    public JsonReader(Reader in) {}
                    public JsonToken peek() { return null; }
                }
            """,
            "gson/src/test/java/com/google/gson/stream/JsonReaderTest.java": """
                package com.google.gson.stream;
                public final class JsonReaderTest {
                    public void testPeek() {
                        JsonReader reader = new JsonReader(reader("{}"));
                        reader.peek();
                    }
                    private static Reader reader(String s) { return null; }
                }
            """,
            # another module's class of the same name, in another package: not reached
            "extras/src/main/java/com/google/gson/extras/JsonReader.java": """
                package com.google.gson.extras;
                public class JsonReader {
                    public JsonToken peek() { return null; }
                }
            """,
        },
    )
    test = "gson.src.test.java.com.google.gson.stream.JsonReaderTest.JsonReaderTest.testPeek"
    main = "gson.src.main.java.com.google.gson.stream.JsonReader.JsonReader"
    assert {dst: res for (src, dst), res in calls.items() if src == test} == {
        f"{main}.JsonReader": "exact",
        f"{main}.peek": "exact",
        "gson.src.test.java.com.google.gson.stream.JsonReaderTest.JsonReaderTest.reader": (
            "unique_name"
        ),
    }


def test_chained_calls_follow_declared_return_types(resolved):
    files = {
        "src/main/java/com/google/gson/GsonBuilder.java": """
            package com.google.gson;
            public final class GsonBuilder {
                public GsonBuilder setPrettyPrinting() { return this; }
                public Gson create() { return new Gson(); }
            }
        """,
        "src/main/java/com/google/gson/Gson.java": """
            package com.google.gson;
            public final class Gson {
                public JsonElement toJsonTree(Object src) { return null; }
                public String toJson(Object src) { return ""; }
            }
        """,
        "src/main/java/com/google/gson/JsonElement.java": """
            package com.google.gson;
            public abstract class JsonElement {
                public JsonObject getAsJsonObject() { return null; }
            }
        """,
        "src/main/java/com/google/gson/JsonObject.java": """
            package com.google.gson;
            public final class JsonObject extends JsonElement {
                public JsonElement get(String memberName) { return null; }
            }
        """,
        "src/main/java/com/google/gson/Names.java": """
            package com.google.gson;
            public final class Names {
                public int length() { return 0; }
            }
        """,
        "src/test/java/com/google/gson/GsonTest.java": """
            package com.google.gson;
            public final class GsonTest {
                public void testTree() {
                    Gson gson = new GsonBuilder().setPrettyPrinting().create();
                    gson.toJsonTree(this).getAsJsonObject().get("a");
                    gson.toJson(this).length();
                }
            }
        """,
    }
    calls = resolved("java", files)
    test = "src.test.java.com.google.gson.GsonTest.GsonTest.testTree"
    m = "src.main.java.com.google.gson"
    assert {dst: res for (src, dst), res in calls.items() if src == test} == {
        f"{m}.GsonBuilder.GsonBuilder": "exact",
        f"{m}.GsonBuilder.GsonBuilder.setPrettyPrinting": "exact",
        f"{m}.GsonBuilder.GsonBuilder.create": "exact",
        f"{m}.Gson.Gson.toJsonTree": "exact",
        f"{m}.JsonElement.JsonElement.getAsJsonObject": "exact",
        f"{m}.JsonObject.JsonObject.get": "exact",
        f"{m}.Gson.Gson.toJson": "exact",
        # `toJson(...)` returns a String: its `length()` is the JDK's, not `Names.length`
    }


WRITER = {
    # gson's JsonWriter and JsonTreeWriter (trimmed): `value` overloads, overridden
    "src/main/java/com/google/gson/stream/JsonWriter.java": """
        package com.google.gson.stream;
        public class JsonWriter {
            public JsonWriter(Writer out) {}
            public JsonWriter value(String value) { return this; }
            public JsonWriter value(boolean value) { return this; }
            public JsonWriter value(double value) { return this; }
            public JsonWriter value(long value) { return this; }
            public JsonWriter value(Number value) { return this; }
        }
    """,
    "src/main/java/com/google/gson/internal/bind/JsonTreeWriter.java": """
        package com.google.gson.internal.bind;
        import com.google.gson.stream.JsonWriter;
        public final class JsonTreeWriter extends JsonWriter {
            @Override public JsonWriter value(long value) { return this; }
        }
    """,
    "src/test/java/com/google/gson/stream/JsonWriterTest.java": """
        package com.google.gson.stream;
        public final class JsonWriterTest {
            public void testValues(JsonWriter declared) {
                JsonWriter jsonWriter = new JsonWriter(new StringWriter());
                jsonWriter.value(0);
                jsonWriter.value(1.5);
                jsonWriter.value(-2L);
                jsonWriter.value(Integer.valueOf(3));
                declared.value(true);
                declared.value(4);
            }
        }
    """,
}


def test_primitive_arguments_pick_the_closest_widening_and_new_is_exact():
    test = "src.test.java.com.google.gson.stream.JsonWriterTest.JsonWriterTest.testValues"
    got = _by_line(WRITER, test)
    assert got == {
        (4, "JsonWriter.JsonWriter", "exact"),
        (5, "JsonWriter.value#4", "exact"),  # value(0): int widens to long before double, Number
        (6, "JsonWriter.value#3", "exact"),  # value(1.5): double
        (7, "JsonWriter.value#4", "exact"),  # value(-2L): long
        # `Integer.valueOf(3)`: a library call's result, of a type not written: any of them,
        # not known which: no edge (all but one would be wrong)
        # a parameter declared JsonWriter: the subclass's override of value(long) may run too
        (9, "JsonWriter.value#2", "exact"),
        (10, "JsonWriter.value#4", "exact"),
        (10, "JsonTreeWriter.value", "override"),
    }


def test_a_collection_argument_fits_only_its_supertypes(resolved):
    calls = resolved(
        "java",
        {
            "src/main/java/com/acme/JsonWriter.java": """
                package com.acme;

                import java.util.Map;

                public class JsonWriter {
                    public JsonWriter value(String value) { return this; }
                    public JsonWriter value(long value) { return this; }
                    public JsonWriter values(Iterable<String> values) { return this; }
                    public JsonWriter values(Map<String, String> values) { return this; }
                }
            """,
            "src/test/java/com/acme/WriterTest.java": """
                package com.acme;

                import java.util.List;

                class WriterTest {
                    void write(JsonWriter writer, List<String> names) {
                        writer.value(names);
                        writer.values(names);
                    }
                }
            """,
        },
    )
    m = "src.main.java.com.acme.JsonWriter.JsonWriter"
    write = {dst: r for (src, dst), r in calls.items() if src.endswith("WriterTest.write")}
    # a List is an Iterable, not a Map (before: both `values`, an overload set); it is
    # neither a String nor a long: `value(names)` takes no edge
    assert write == {f"{m}.values": "exact"}


def test_java_arguments_null_ternaries_bounds_and_kotlin_parameters():
    # moshi: Java tests calling the Kotlin `JsonWriter`'s `value` overloads; gson: a ternary
    # with a null side is a reference of the other side's type
    from codebot.graph.resolve import resolve
    from codebot.parse.files import role_for_path

    files = {
        "moshi/src/main/java/com/squareup/moshi/JsonWriter.kt": (
            "kotlin",
            """
            package com.squareup.moshi

            public abstract class JsonWriter {
                public abstract fun value(value: String?): JsonWriter
                public abstract fun value(value: Boolean): JsonWriter
                public abstract fun value(value: Double): JsonWriter
                public abstract fun value(value: Long): JsonWriter
                public abstract fun value(value: Number?): JsonWriter
            }
            public class Builder {
                public fun add(factory: JsonAdapter.Factory): Builder = this
                public fun add(adapter: Any): Builder = this
            }
            public abstract class JsonAdapter {
                public interface Factory
            }
            """,
        ),
        "moshi/src/test/java/com/squareup/moshi/WriterTest.java": (
            "java",
            """
            package com.squareup.moshi;

            class WriterTest {
                void write(JsonWriter writer, Object value) {
                    writer.value(1);
                    writer.value(Long.MIN_VALUE);
                    writer.value(value == null ? null : value.toString());
                    new Builder().add(new MyFactory());
                }
                static class MyFactory implements JsonAdapter.Factory {}
            }
            """,
        ),
    }
    parsed = [
        parse_source(
            p,
            textwrap.dedent(c).lstrip("\n").encode(),
            lang,
            role=role_for_path(p, lang),
            module=module_id(p),
        )
        for p, (lang, c) in files.items()
    ]
    edges = {(e.src, e.dst): e.resolution for e in resolve(parsed).edges if e.kind == "calls"}
    writer = "moshi.src.main.java.com.squareup.moshi.JsonWriter"
    src = "moshi.src.test.java.com.squareup.moshi.WriterTest.WriterTest.write"
    assert {dst.removeprefix(writer + "."): r for (s, dst), r in edges.items() if s == src} == {
        # `value(1)`, `value(Long.MIN_VALUE)`: Kotlin's `Long` is Java's `long`, where an int
        # widens before it is boxed to a Number
        "JsonWriter.value#4": "exact",
        # `value == null ? null : value.toString()`: a String
        "JsonWriter.value": "exact",
        # a JsonAdapter.Factory is more specific than Any
        "Builder": "exact",
        "Builder.add": "exact",
        "moshi.src.test.java.com.squareup.moshi.WriterTest.WriterTest.MyFactory": "exact",
    }


def test_unique_name_guess_never_reaches_an_override_of_a_library_method(resolved):
    # gson: `getAsNumber().longValue()` calls `Number.longValue` (the JDK's); the repository's
    # only `longValue`, LazilyParsedNumber's @Override, is one implementation among many
    # (`number()`, defined outside the caller's hierarchy too, is no claimed bare name)
    calls = resolved(
        "java",
        {
            "gson/src/main/java/com/google/gson/internal/LazilyParsedNumber.java": """
                package com.google.gson.internal;
                public final class LazilyParsedNumber extends Number {
                    @Override
                    public long longValue() { return 0L; }
                    public String describe() { return ""; }
                }
            """,
            "gson/src/main/java/com/google/gson/JsonArray.java": """
                package com.google.gson;
                public final class JsonArray {
                    public Number number() { return null; }
                }
            """,
            "gson/src/main/java/com/google/gson/JsonPrimitive.java": """
                package com.google.gson;
                import com.google.gson.internal.LazilyParsedNumber;
                public final class JsonPrimitive {
                    public Number number() { return null; }
                    public long getAsLong() {
                        number().describe();
                        return number().longValue();
                    }
                }
            """,
        },
    )
    src = "gson.src.main.java.com.google.gson.JsonPrimitive.JsonPrimitive.getAsLong"
    lazily = "gson.src.main.java.com.google.gson.internal.LazilyParsedNumber.LazilyParsedNumber"
    assert {dst for (s, dst) in calls if s == src} == {f"{lazily}.describe"}


def test_a_boxed_argument_takes_a_supertype_before_it_is_unboxed(resolved):
    # moshi's JsonAdapterTest: `writer.value(value)` with `Double value` is `value(Number)`
    # (Java's first phase: no unboxing), `writer.value(1.5)` is `value(double)`
    calls = resolved(
        "java",
        {
            "src/a/JsonWriter.java": """
                package a;
                public abstract class JsonWriter {
                    public abstract JsonWriter value(double value);
                    public abstract JsonWriter value(Number value);
                    public abstract JsonWriter value(String value);
                }
            """,
            "src/a/Use.java": """
                package a;
                class Use {
                    void boxed(JsonWriter writer, Double value) { writer.value(value); }
                    void primitive(JsonWriter writer) { writer.value(1.5); }
                }
            """,
        },
    )
    w = "src.a.JsonWriter.JsonWriter"
    assert {d for (s, d) in calls if s == "src.a.Use.Use.boxed"} == {f"{w}.value#2"}
    assert {d for (s, d) in calls if s == "src.a.Use.Use.primitive"} == {f"{w}.value"}
