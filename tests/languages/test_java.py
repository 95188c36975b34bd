from codebot.core.model import Import, Parameter

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
    assert p.calls(f"{M}.OrderService.OrderService") == ["super", "requireNonNull"]
    assert p.calls(f"{M}.OrderService.OrderService#2") == ["this", "InMemoryRepository"]
    # With a plain receiver the call reads as written (`@call.expr`); after a call, the name only.
    # A receiver declared with a type (a field, a local, a parameter) carries it.
    assert p.calls(f"{M}.OrderService.place") == [
        "Order",
        "(this.repo: OrderRepository).save",
        "(repo: OrderRepository).findById",
        "map",
        "OrderService::copy",
        "orElseThrow",
    ]
    assert p.calls(f"{M}.OrderService.place#2") == [
        "(ids: List<String>).stream",
        "map",
        "this::place",
        "toList",
    ]
    assert p.calls(f"{M}.OrderService.copy") == ["com.acme.orders.Order"]
    assert p.calls(f"{M}.OrderService.close") == ["super.close"]
    assert p.calls(f"{M}.OrderService.Builder.Step.run") == ["Builder.this.repo"]
    assert p.calls(f"{M}.OrderService.Line.Line") == ["check"]
    # A field initializer's call belongs to the class.
    assert p.calls(f"{M}.OrderService") == ["ArrayList"]


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
    assert p.calls("Audited.Jobs.job") == ["Runnable"]
    assert p.calls("Audited.Jobs.job.run") == ["work"]


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
        "JsonTreeReader",
        "(reader: JsonTreeReader).hasNext",
        "JsonTreeReader",
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
