import textwrap

from codebot.core.model import Import, Parameter
from codebot.graph.resolve import resolve
from codebot.parse.extract import module_id, parse_source

PATH = "src/Acme.Orders/OrderService.cs"
M = "src.Acme.Orders.OrderService"
NS = f"{M}.Acme.Orders"

SOURCE = """
using System;
using System.Collections.Generic;
using static System.Math;
using Json = Newtonsoft.Json.JsonConvert;
global using System.Linq;

namespace Acme.Orders
{
    /// <summary>
    /// Places and looks up orders.
    /// </summary>
    /// <remarks>Thread-safe; see <see cref="IOrderRepository"/>.</remarks>
    [Serializable]
    [Route("api/orders"), Authorize(Roles = "ops")]
    public sealed partial class OrderService : ServiceBase<Order>, IOrderService, IDisposable
    {
        private readonly IOrderRepository _repo;
        private readonly List<IListener> _listeners = new List<IListener>();

        public int Count { get; private set; }

        public string Name => Json.SerializeObject(_repo);

        public decimal Total
        {
            get { return Compute(); }
        }

        /// <summary>Creates the service.</summary>
        /// <param name="repo">Where orders live.</param>
        public OrderService(IOrderRepository repo) : base(repo)
        {
            _repo = repo ?? throw new ArgumentNullException(nameof(repo));
        }

        /// <summary>Places an order.</summary>
        /// <param name="id">The order id.</param>
        /// <returns>The saved order.</returns>
        [HttpPost]
        public async Task<Order> PlaceAsync(string id, int quantity = 1, params string[] tags)
        {
            var order = new Order(id, quantity);
            await this._repo.SaveAsync(order);
            Log.Write<Order>(order);
            return _repo.Find(id)?.Select(o => o.Copy()).First();
        }

        public Order Place(Order order) => Place(order, DateTime.UtcNow);

        public Order Place(Order order, DateTime at)
        {
            return _repo?.Save(order);
        }

        ~OrderService() { }

        public static OrderService operator +(OrderService a, OrderService b) => a;

        public void Dispose() => _repo.Dispose();

        private class Cache
        {
            internal bool TryGet(in string key, out Order order)
            {
                order = null;
                return Lookup(key, ref order);

                bool Lookup(string k, ref Order o) => false;
            }
        }
    }

    public interface IOrderService : IDisposable
    {
        Task<Order> PlaceAsync(string id, int quantity = 1, params string[] tags);
    }

    public struct Money
    {
        public decimal Amount;

        public Money Add(Money other) => new Money { Amount = Amount + other.Amount };
    }

    public record Order(string Id, int Quantity = 1) : Entity(Id);

    public readonly record struct OrderId(Guid Value);

    public enum Status { Open, Closed }

    namespace Events
    {
        public class Placed { public void Raise() { } }
    }
}
"""


def test_ids_kinds_lines_namespaces(parse):
    p = parse("csharp", PATH, SOURCE)
    assert p.ids == [
        f"{NS}.OrderService",
        f"{NS}.OrderService.Name",
        f"{NS}.OrderService.Total",
        f"{NS}.OrderService.OrderService",
        f"{NS}.OrderService.PlaceAsync",
        f"{NS}.OrderService.Place",
        f"{NS}.OrderService.Place#2",
        f"{NS}.OrderService.~OrderService",
        f"{NS}.OrderService.operator +",
        f"{NS}.OrderService.Dispose",
        f"{NS}.OrderService.Cache",
        f"{NS}.OrderService.Cache.TryGet",
        f"{NS}.OrderService.Cache.TryGet.Lookup",
        f"{NS}.IOrderService",
        f"{NS}.IOrderService.PlaceAsync",
        f"{NS}.Money",
        f"{NS}.Money.Add",
        f"{NS}.Order",
        f"{NS}.OrderId",
        f"{NS}.Status",
        f"{NS}.Events.Placed",
        f"{NS}.Events.Placed.Raise",
    ]
    spans = {s.id: (s.kind, s.start_line, s.end_line, s.class_name) for s in p.result.symbols}
    assert spans[f"{NS}.OrderService"] == ("class", 13, 71, None)
    assert spans[f"{NS}.OrderService.Total"] == ("method", 24, 27, "OrderService")
    assert spans[f"{NS}.OrderService.PlaceAsync"] == ("method", 39, 46, "OrderService")
    assert spans[f"{NS}.OrderService.Cache"] == ("class", 61, 70, "OrderService")
    assert spans[f"{NS}.OrderService.Cache.TryGet"] == ("method", 63, 69, "Cache")
    assert spans[f"{NS}.OrderService.Cache.TryGet.Lookup"] == ("function", 68, 68, None)
    assert spans[f"{NS}.IOrderService"] == ("interface", 73, 76, None)
    assert spans[f"{NS}.IOrderService.PlaceAsync"] == ("method", 75, 75, "IOrderService")
    assert spans[f"{NS}.Money"] == ("struct", 78, 83, None)
    assert spans[f"{NS}.Money.Add"] == ("method", 82, 82, "Money")
    assert spans[f"{NS}.Order"] == ("class", 85, 85, None)
    assert spans[f"{NS}.OrderId"] == ("struct", 87, 87, None)
    assert spans[f"{NS}.Status"] == ("enum", 89, 89, None)
    assert spans[f"{NS}.Events.Placed.Raise"] == ("method", 93, 93, "Placed")


def test_file_scoped_namespace(parse):
    code = """
    using Acme.Orders;

    namespace Acme.Billing.Invoices;

    /// <summary>An invoice.</summary>
    public class Invoice
    {
        public void Send() => Mailer.Send(this);
    }
    """
    p = parse("csharp", "Billing/Invoice.cs", code)
    assert p.ids == [
        "Billing.Invoice.Acme.Billing.Invoices.Invoice",
        "Billing.Invoice.Acme.Billing.Invoices.Invoice.Send",
    ]
    invoice = p["Billing.Invoice.Acme.Billing.Invoices.Invoice"]
    assert (invoice.start_line, invoice.end_line, invoice.docstring) == (6, 9, "An invoice.")
    assert p.calls("Billing.Invoice.Acme.Billing.Invoices.Invoice.Send") == ["Mailer.Send/(?)"]
    assert p.imports == [Import("Acme.Orders", "*", line=1)]


def test_doc_comments_attributes_bases(parse):
    p = parse("csharp", PATH, SOURCE)
    cls = p[f"{NS}.OrderService"]
    assert cls.docstring == "Places and looks up orders.\nThread-safe; see IOrderRepository."
    assert cls.decorators == ("Serializable", 'Route("api/orders")', 'Authorize(Roles = "ops")')
    assert cls.bases == ("ServiceBase<Order>", "IOrderService", "IDisposable")
    assert cls.signature == (
        '[Serializable] [Route("api/orders"), Authorize(Roles = "ops")] public sealed partial class '
        "OrderService : ServiceBase<Order>, IOrderService, IDisposable"
    )
    assert p[f"{NS}.IOrderService"].bases == ("IDisposable",)
    assert p[f"{NS}.Order"].bases == ("Entity",)
    ctor = p[f"{NS}.OrderService.OrderService"]
    assert ctor.docstring == "Creates the service.\nrepo: Where orders live."
    assert (ctor.return_type, ctor.parameters) == (None, (Parameter("repo", "IOrderRepository"),))
    assert ctor.signature == "public OrderService(IOrderRepository repo) : base(repo)"


def test_methods_parameters_async_properties(parse):
    p = parse("csharp", PATH, SOURCE)
    place = p[f"{NS}.OrderService.PlaceAsync"]
    assert place.docstring == "Places an order.\nid: The order id.\nReturns: The saved order."
    assert place.decorators == ("HttpPost",)
    assert place.return_type == "Task<Order>"
    assert place.parameters == (
        Parameter("id", "string"),
        Parameter("quantity", "int", "1"),
        Parameter("tags", "params string[]"),
    )
    assert place.signature.startswith("[HttpPost] public async Task<Order> PlaceAsync(string id")
    assert p[f"{NS}.IOrderService.PlaceAsync"].parameters == place.parameters
    assert p[f"{NS}.OrderService.Cache.TryGet"].parameters == (
        Parameter("key", "in string"),
        Parameter("order", "out Order"),
    )
    name = p[f"{NS}.OrderService.Name"]
    assert (name.kind, name.return_type, name.signature, name.parameters) == (
        "method",
        "string",
        "public string Name",
        (),
    )
    assert p[f"{NS}.OrderService.operator +"].parameters == (
        Parameter("a", "OrderService"),
        Parameter("b", "OrderService"),
    )


def test_calls(parse):
    p = parse("csharp", PATH, SOURCE)
    # A receiver declared with a type (a field, a local, a parameter) carries it; a call ends
    # with its arguments' types, for choosing among overloads (none with `out`/`ref` ones).
    # A method of an expression's value the text cannot follow (`a?.B(x).C()`) is `(?).C`.
    assert p.calls(f"{NS}.OrderService.PlaceAsync") == [
        "Order/(string, int)",
        "(this._repo: IOrderRepository).SaveAsync/(Order)",  # `var order = new Order(..)`
        "Log.Write<Order>/(Order)",
        "(_repo: IOrderRepository).Find/(string)",
        "(?).Select/(lambda`1)",
        "o.Copy/()",
        "(?).First/()",
    ]
    assert p.calls(f"{NS}.OrderService.OrderService") == [
        "base/(IOrderRepository)",  # `: base(repo)`: its arguments choose the constructor
        "ArgumentNullException/(?)",
        "nameof/(IOrderRepository)",
    ]
    # `DateTime.UtcNow`: a type's static member, `~DateTime` (the resolver knows which types'
    # members are of the type itself: enums, DateTime's)
    assert p.calls(f"{NS}.OrderService.Place") == ["Place/(Order, ~DateTime)"]
    assert p.calls(f"{NS}.OrderService.Place#2") == ["(_repo: IOrderRepository).Save/(Order)"]
    assert p.calls(f"{NS}.OrderService.Name") == ["Json.SerializeObject/(IOrderRepository)"]
    assert p.calls(f"{NS}.OrderService.Total") == ["Compute/()"]
    assert p.calls(f"{NS}.OrderService.Cache.TryGet") == ["Lookup"]
    assert p.calls(f"{NS}.Money.Add") == ["Money"]
    assert p.calls(f"{NS}.OrderService") == [
        "List<IListener>/()"
    ]  # (arity: another type than List)


def test_usings(parse):
    p = parse("csharp", PATH, SOURCE)
    assert p.imports == [
        Import("System", "*", line=1),
        Import("System.Collections.Generic", "*", line=2),
        Import("System.Math", "*", line=3),
        Import("Newtonsoft.Json", "JsonConvert", "Json", line=4),
        Import("System.Linq", "*", line=5),
    ]


# --- typed receivers: the type a reader sees at a glance ---------------------------------------

SHOP = {
    "src/Shop/Orders.cs": """
        namespace Shop.Orders
        {
            public interface IOrderRepository
            {
                void Save(Order order);
            }

            public class SqlOrderRepository : IOrderRepository
            {
                public void Save(Order order) { }
            }

            public class Order
            {
                public void Validate() { }
            }
        }
    """,
    "src/Shop/Audit.cs": """
        namespace Shop.Audit
        {
            public class AuditLog
            {
                public void Save(string line) { }
                public void Validate() { }
                public void Normalize() { }
            }
        }
    """,
    "src/Shop/OrderService.cs": """
        using System;
        using Shop.Orders;

        namespace Shop.Services
        {
            public class OrderService
            {
                private readonly IOrderRepository _repo;

                public OrderService(IOrderRepository repo) { _repo = repo; }

                public void Place(Order order, Uri source)
                {
                    order.Validate();
                    _repo.Save(order);
                    var local = new SqlOrderRepository();
                    local.Save(order);
                    source.Normalize();
                }
            }
        }
    """,
}


def test_typed_receivers_var_new_fields_and_parameters(parse, resolved):
    p = parse("csharp", "src/Shop/OrderService.cs", SHOP["src/Shop/OrderService.cs"])
    assert p.calls("src.Shop.OrderService.Shop.Services.OrderService.Place") == [
        "(order: Order).Validate/()",
        "(_repo: IOrderRepository).Save/(Order)",
        "SqlOrderRepository/()",
        "(local = new SqlOrderRepository()).Save/(Order)",
        "(source: Uri).Normalize/()",
    ]
    calls = resolved("csharp", SHOP)
    place = "src.Shop.OrderService.Shop.Services.OrderService.Place"
    orders = "src.Shop.Orders.Shop.Orders"
    # `Validate` and `Save` are defined by unrelated classes too: the declared types say which
    assert calls[(place, f"{orders}.Order.Validate")] == "exact"  # a typed parameter
    assert calls[(place, f"{orders}.IOrderRepository.Save")] == "exact"  # a typed field
    assert calls[(place, f"{orders}.SqlOrderRepository.Save")] == "exact"  # `var x = new T()`
    assert (place, "src.Shop.Audit.Shop.Audit.AuditLog.Save") not in calls


def test_typed_receiver_of_a_library_type_is_external(resolved):
    # `Uri source` (System's): not the repository's only `Normalize`
    place = "src.Shop.OrderService.Shop.Services.OrderService.Place"
    assert (place, "src.Shop.Audit.Shop.Audit.AuditLog.Normalize") not in resolved("csharp", SHOP)


# --- constants (issue 21) ------------------------------------------------------------------------

NAMES = """
namespace Acme.Http {
public class Client {
    public const int MaxRetries = 3;
    private static readonly HttpClient shared = new HttpClient();
    private readonly int timeout = 1;
    static int counter;
    void Send() { const int local = 1; }
}
}
"""


def test_const_and_static_readonly_fields_are_constants(parse):
    p = parse("csharp", "src/Client.cs", NAMES)
    c = "src.Client.Acme.Http.Client"
    kinds = {s.id: s.kind for s in p.result.symbols if s.kind in ("constant", "variable")}
    assert kinds == {f"{c}.MaxRetries": "constant", f"{c}.shared": "constant"}
    assert p[f"{c}.shared"].class_name == "Client"


def test_overloads_by_arity_and_argument_types(resolved):
    calls = resolved(
        "csharp",
        {
            "src/Shop/Orders.cs": """
                namespace Shop.Orders;
                public class Order {
                    public Order() {}
                    public Order(string id) {}
                    public Order(string id, int quantity = 1) {}
                }
                public class Ledger {
                    public void Post(string memo) {}
                    public void Post(int cents) {}
                    public void Post(Order order, params string[] tags) {}
                }
            """,
            "src/Shop/Checkout.cs": """
                namespace Shop.Orders;
                public class Checkout {
                    public void Run(Ledger ledger, Order order, object anything) {
                        var first = new Order();
                        var second = new Order("a-1", 3);
                        ledger.Post("memo");
                        ledger.Post(250);
                        ledger.Post(order, "rush", "gift");
                        ledger.Post(anything.ToString());
                    }
                }
            """,
        },
    )
    run = {
        ".".join(dst.split(".")[-2:]): r for (src, dst), r in calls.items() if src.endswith(".Run")
    }
    assert run == {
        "Order.Order": "exact",  # new Order()
        "Order.Order#3": "exact",  # new Order("a-1", 3)
        "Ledger.Post": "exact",  # Post("memo")
        "Ledger.Post#2": "exact",  # Post(250)
        "Ledger.Post#3": "exact",  # Post(order, params string[])
    }


# --- extension methods (issue 21, Dapper) --------------------------------------------------------

DAPPER = {
    "Dapper/SqlMapper.cs": """
        namespace Dapper;

        public static partial class SqlMapper
        {
            public static int Execute(this IDbConnection cnn, string sql, object? param = null) => 0;

            public static IEnumerable<T> Query<T>(this IDbConnection cnn, string sql, object? param = null) => null;

            public static IEnumerable<dynamic> Query(this IDbConnection cnn, string sql, object? param = null) => null;

            public static IEnumerable<TReturn> Query<TFirst, TReturn>(this IDbConnection cnn, string sql, Func<TFirst, TReturn> map) => null;

            [SuppressMessage("ApiDesign", "RS0026")]
            public static IEnumerable<TReturn> Query<TFirst, TSecond, TReturn>(this IDbConnection cnn, string sql, Func<TFirst, TSecond, TReturn> map) => null;

            public static T Parse<T>(this IDataReader reader) => default;

            public static string Slug(this string text) => text;
        }
    """,
    "Dapper.Rainbow/Database.cs": """
        namespace Dapper.Rainbow;

        public class Database
        {
            public int Execute(string sql) => 0;
        }
    """,
    "tests/Dapper.Tests/TestBase.cs": """
        namespace Dapper.Tests;

        public abstract class TestBase
        {
            protected DbConnection connection => Open();
        }
    """,
    "tests/Dapper.Tests/QueryTests.cs": """
        namespace Dapper.Tests;

        public class QueryTests : TestBase
        {
            public void Run(IDataReader reader, IDbConnection cnn)
            {
                connection.Execute("create table #t (i int)");
                connection.Query<int>("select 1");
                connection.Query("select 1");
                connection.Query("select @a", args);
                cnn.Query<Post, User, Post>("select *", (p, u) => p);
                reader.Parse<Post>();
                other.Execute("x");
                "Hello".Slug();
            }
        }
    """,
}


def test_extension_methods_on_a_receiver_of_their_this_type(resolved):
    calls = resolved("csharp", DAPPER)
    run = "tests.Dapper.Tests.QueryTests.Dapper.Tests.QueryTests.Run"
    mapper = "Dapper.SqlMapper.Dapper.SqlMapper"
    # `connection` is the base class's property of type DbConnection (an IDbConnection)
    assert calls[(run, f"{mapper}.Execute")] == "exact"
    # `Query<int>`: one type argument, the one-parameter Query; `Query<Post, User, Post>`: the
    # three-parameter one (after an attribute with parentheses in its signature)
    assert calls[(run, f"{mapper}.Query")] == "exact"
    assert calls[(run, f"{mapper}.Query#4")] == "exact"
    # `Query("select 1")`: no type argument written, and Query<T> cannot infer T from its
    # arguments: the non-generic Query (its dynamic rows), not an `overload` of both;
    # `Query(sql, args)`: `args` might be a Func for Query<TFirst, TReturn>, but C# prefers the
    # non-generic member that fits as well
    assert calls[(run, f"{mapper}.Query#2")] == "exact"
    assert (run, f"{mapper}.Query#3") not in calls
    assert calls[(run, f"{mapper}.Parse")] == "exact"  # `reader: IDataReader`
    # `other.Execute`: of unknown type, and `Database` has an instance `Execute`: no guess
    assert (run, "Dapper.Rainbow.Database.Dapper.Rainbow.Database.Execute") not in calls


def test_an_extension_of_another_type_is_not_taken():
    # `cnn.Execute` where cnn is a `Database` (a repository type with its own `Execute`): the
    # instance method, never SqlMapper's extension of IDbConnection
    files = {
        **DAPPER,
        "tests/Dapper.Tests/DbTests.cs": """
            namespace Dapper.Tests;
            using Dapper.Rainbow;

            public class DbTests
            {
                public void Run(Database db, Stream stream, NpgsqlConnection pg)
                {
                    db.Execute("x");
                    stream.Execute("y");
                    pg.Execute("z");
                }
            }
        """,
    }
    parsed = [
        parse_source(p, textwrap.dedent(c).lstrip("\n").encode(), "csharp", module=module_id(p))
        for p, c in files.items()
    ]
    res = resolve(parsed)
    calls = {(e.src, e.dst): e.resolution for e in res.edges if e.kind == "calls"}
    run = "tests.Dapper.Tests.DbTests.Dapper.Tests.DbTests.Run"
    assert calls[(run, "Dapper.Rainbow.Database.Dapper.Rainbow.Database.Execute")] == "exact"
    # `pg: NpgsqlConnection`, a library's type named as a connection: SqlMapper's extension of
    # IDbConnection, a guess (`unique_name`); `stream: Stream`: nothing says it is one
    assert calls[(run, "Dapper.SqlMapper.Dapper.SqlMapper.Execute")] == "unique_name"
    assert res.external.get(run, 0) + res.unresolved.get(run, 0) == 1  # stream.Execute


# --- chains, arity, named arguments, nullable overloads (issue 21, branch csharp) ----------------


def _resolution(files: dict[str, str]):
    parsed = [
        parse_source(p, textwrap.dedent(c).lstrip("\n").encode(), "csharp", module=module_id(p))
        for p, c in files.items()
    ]
    return resolve(parsed)


def _edges_of(res, caller_suffix: str) -> dict[str, str]:
    """``{callee's last two names: resolution}`` of the callers whose id ends so."""
    return {
        ".".join(e.dst.split(".")[-2:]): e.resolution
        for e in res.edges
        if e.kind == "calls" and e.src.endswith(caller_suffix)
    }


CHAINS = {
    "src/Shop/Builder.cs": """
        namespace Shop;
        public class OrderBuilder {
            public OrderBuilder WithId(string id) => this;
            public Order Build() => new Order();
            public static OrderBuilder Create() => new OrderBuilder();
        }
        public class Order {
            public void Single() { }
            public void Add(int x) { }
            public void Validate() { }
        }
        public class Ledger {
            public void Single() { }
        }
    """,
    "src/Shop/Checkout.cs": """
        namespace Shop;
        using System.Data;
        public class Checkout {
            public Order Current() => null;
            public void Run(IDbConnection cnn, IDbCommand cmd, List<Order> orders) {
                new OrderBuilder().WithId("a").Build().Validate();
                OrderBuilder.Create().Build().Validate();
                Current().Validate();
                this.Current().Validate();
                cnn.Query<int>("select 1").Single();
                cmd.Parameters.Add(1);
                (orders as IList<Order>).Single();
                string.Join(",", orders);
            }
        }
    """,
    "src/Shop/SqlMapper.cs": """
        namespace Shop;
        public static class SqlMapper {
            public static IEnumerable<T> Query<T>(this IDbConnection cnn, string sql) => null;
        }
    """,
}


def test_chains_follow_declared_return_types(parse):
    p = parse("csharp", "src/Shop/Checkout.cs", CHAINS["src/Shop/Checkout.cs"])
    calls = p.calls("src.Shop.Checkout.Shop.Checkout.Run")
    # a call on a call's value keeps the calls before it, arguments dropped; any other
    # expression's value is `(?)`, never `this`
    assert "new OrderBuilder().WithId().Build().Validate/()" in calls
    assert "(cnn: IDbConnection).Query<int>().Single/()" in calls
    assert "(cmd: IDbCommand).Parameters.Add/(int)" in calls
    assert "(?).Single/()" in calls
    res = _resolution(CHAINS)
    run = _edges_of(res, "Checkout.Run")
    # `new OrderBuilder().WithId(..).Build()`, `OrderBuilder.Create().Build()`, `Current()`:
    # an Order, whose `Validate` it is
    assert run["Order.Validate"] == "exact"
    assert run["OrderBuilder.WithId"] == "exact" and run["OrderBuilder.Build"] == "exact"
    assert run["Checkout.Current"] == "exact"
    # `cnn.Query<int>(..)` is an IEnumerable (a library type): `.Single()` is LINQ's, not
    # Order's or Ledger's; `cmd.Parameters` is a library value: `.Add` is not Order's;
    # `(orders as ..).Single()`: of no known type, and two types define `Single`: no edge
    assert "Order.Single" not in run and "Ledger.Single" not in run
    assert "Order.Add" not in run
    # `string.Join`: the language's string, never a repository method found by name
    assert not any(k.endswith(".Join") for k in run)
    assert res.external["src.Shop.Checkout.Shop.Checkout.Run"] >= 3


def test_a_chain_through_an_unknown_value_is_not_guessed():
    # `Make()` declares no return type: what `.Validate()` is called on is not known, and two
    # types define Validate: no edge (where a bare `Validate` would have been this type's)
    files = {
        "src/A.cs": """
            namespace Shop;
            public class A {
                public dynamic Make() => null;
                public void Validate() { }
                public void Run() { Make().Validate(); }
            }
            public class B { public void Validate() { } }
        """
    }
    assert _edges_of(_resolution(files), "A.Run") == {"A.Make": "exact"}


def test_locals_of_a_using_statement_are_typed(parse):
    code = """
        namespace Shop;
        public class Repo {
            public void Run(IDbCommand cmd) {
                using (var reader = new OrderReader()) { reader.Next(); }
            }
        }
        public class OrderReader { public void Next() { } }
        public class Other { public void Next() { } }
    """
    p = parse("csharp", "src/Repo.cs", code)
    assert p.calls("src.Repo.Shop.Repo.Run") == [
        "OrderReader/()",
        "(reader = new OrderReader()).Next/()",
    ]
    assert _edges_of(_resolution({"src/Repo.cs": code}), "Repo.Run") == {
        "Shop.OrderReader": "exact",  # (no constructor written: the type)
        "OrderReader.Next": "exact",
    }


# A method header split by `#if`/`#else` leaves the namespace an ERROR node (Newtonsoft.Json's
# TestFixtureBase.cs): its types keep the namespace, and an alias to them resolves
FIXTURE_BASE = """
using System;
#if DNXCORE50
using Assert = Acme.Tests.XUnitAssert;
#endif

namespace Acme.Tests
{
    public class XUnitAssert
    {
        public static void AreEqual(double expected, double actual, double r) { }
        public static void AreEqual(object expected, object actual, string message = null) { }
        public static void AreEqual<T>(T expected, T actual, string message = null) { }
        public static void IsTrue(bool condition) { }
    }

    public abstract class TestFixtureBase
    {
#if DNXCORE50
        protected TestFixtureBase()
#else
        [SetUp]
        protected void TestSetup()
#endif
        {
        }
    }
}
"""

USES_ASSERT = """
using Assert = Acme.Tests.XUnitAssert;

namespace Acme.Tests.Linq
{
    public class JValueTests : TestFixtureBase
    {
        public void Values(JValue v, int count)
        {
            Assert.AreEqual(3, count);
            Assert.AreEqual(null, null);
            Assert.IsTrue(count > 0);
        }
    }
}
"""


def test_a_namespace_the_grammar_left_open_still_scopes_its_types(parse):
    p = parse("csharp", "Src/Tests/TestFixtureBase.cs", FIXTURE_BASE)
    assert "Src.Tests.TestFixtureBase.Acme.Tests.XUnitAssert" in {s.id for s in p.result.symbols}
    res = _resolution(
        {"Src/Tests/TestFixtureBase.cs": FIXTURE_BASE, "Src/Tests/Linq/JValueTests.cs": USES_ASSERT}
    )
    values = _edges_of(res, "JValueTests.Values")
    # `AreEqual(3, count)`: `AreEqual<T>(T, T)` infers T = int, a better conversion than to
    # `object`; `AreEqual(null, null)` infers nothing: the `object` member
    assert values["XUnitAssert.AreEqual#3"] == "exact"
    assert values["XUnitAssert.AreEqual#2"] == "exact"
    assert values["XUnitAssert.IsTrue"] == "exact"
    assert "XUnitAssert.AreEqual" not in values  # (the three-double member)


GENERIC_ARITY = {
    "Dapper.Rainbow/Database.cs": """
        namespace Dapper;
        public abstract partial class Database<TDatabase> where TDatabase : Database<TDatabase>, new()
        {
            public Database() { }
        }
    """,
    "benchmarks/PetaPoco/PetaPoco.cs": """
        namespace PetaPoco;
        public class Database
        {
            public Database(string connectionString, string providerName) { }
        }
    """,
    "benchmarks/Benchmarks.PetaPoco.cs": """
        using PetaPoco;
        namespace Dapper.Tests.Performance;
        public class PetaPocoBenchmarks
        {
            public void Setup() { var db = new Database("cs", "System.Data.SqlClient"); }
        }
        public class Db : Dapper.Database<Db> { }
        public class Rainbow
        {
            public void Setup() { var db = new Database<Db>(); }
        }
    """,
}


def test_generic_arity_is_part_of_a_type_name():
    res = _resolution(GENERIC_ARITY)
    # `new Database(..)`: PetaPoco's (of a `using`), not the outer namespace's `Database<T>`
    assert _edges_of(res, "PetaPocoBenchmarks.Setup") == {"Database.Database": "exact"}
    setup = [e.dst for e in res.edges if e.src.endswith("PetaPocoBenchmarks.Setup")]
    assert setup == ["benchmarks.PetaPoco.PetaPoco.PetaPoco.Database.Database"]
    rainbow = [e.dst for e in res.edges if e.kind == "calls" and e.src.endswith("Rainbow.Setup")]
    assert rainbow == ["Dapper.Rainbow.Database.Dapper.Database.Database"]


HANDLERS = {
    "Dapper/SqlMapper.ITypeHandler.cs": """
        namespace Dapper;
        public static partial class SqlMapper
        {
            public interface ITypeHandler
            {
                void SetValue(IDbDataParameter parameter, object value);
            }

            public abstract class TypeHandler<T> : ITypeHandler
            {
                public abstract void SetValue(IDbDataParameter parameter, T? value);

                void ITypeHandler.SetValue(IDbDataParameter parameter, object value)
                {
                    SetValue(parameter, (T?)value);
                }
            }
        }
    """,
    "Dapper/Handlers.cs": """
        namespace Dapper;
        public class UdtTypeHandler : SqlMapper.ITypeHandler
        {
            public void SetValue(IDbDataParameter parameter, object value) { }
        }
        public class RatingHandler : SqlMapper.TypeHandler<Rating>
        {
            public override void SetValue(IDbDataParameter parameter, Rating value) { }
        }
    """,
    "Dapper/DynamicParameters.cs": """
        namespace Dapper;
        public class DynamicParameters
        {
            public void AddParameters(IDbDataParameter p, object val)
            {
                SqlMapper.ITypeHandler? handler = null;
                handler.SetValue(p, val);
            }
        }
    """,
}


def test_an_interface_method_reaches_only_methods_with_its_parameters():
    res = _resolution(HANDLERS)
    add = _edges_of(res, "DynamicParameters.AddParameters")
    assert add["ITypeHandler.SetValue"] == "exact"
    assert add["UdtTypeHandler.SetValue"] == "override"
    assert add["TypeHandler.SetValue#2"] == "override"  # `void ITypeHandler.SetValue(..)`
    # `SetValue(parameter, T? value)` and its override take no `object`: not this call's
    assert "TypeHandler.SetValue" not in add and "RatingHandler.SetValue" not in add


NAMED = {
    "Dapper/SqlMapper.cs": """
        namespace Dapper;
        public static partial class SqlMapper
        {
            public static IEnumerable<T> Query<T>(this IDbConnection cnn, string sql, object? param = null, IDbTransaction? transaction = null, CommandType? commandType = null) => null;
            public static IEnumerable<TReturn> Query<TReturn>(this IDbConnection cnn, string sql, Type[] types, Func<object[], TReturn> map, object? param = null, CommandType? commandType = null) => null;
        }
    """,
    "tests/ParameterTests.cs": """
        namespace Dapper.Tests;
        public class ParameterTests
        {
            public void Run(IDbConnection connection, object rules)
            {
                connection.Query<int>("#Proc", rules, commandType: CommandType.StoredProcedure);
                connection.Query<int>("#Proc", rules, mode: 1);
            }
        }
    """,
}


def test_named_arguments_are_matched_by_name(parse):
    p = parse("csharp", "tests/ParameterTests.cs", NAMED["tests/ParameterTests.cs"])
    assert p.calls("tests.ParameterTests.Dapper.Tests.ParameterTests.Run")[0] == (
        "(connection: IDbConnection).Query<int>/(string, object, named:commandType)"
    )
    res = _resolution(NAMED)
    # the member with `types` and `map` needs them, and a named argument does not give them;
    # no member has a parameter `mode`: that call makes no edge
    assert _edges_of(res, "ParameterTests.Run") == {"SqlMapper.Query": "exact"}


WRITER = {
    "src/JsonWriter.cs": """
        namespace Acme.Json;
        public enum Formatting { None, Indented }
        public class JsonWriter
        {
            public virtual void WriteValue(int value) { }
            public virtual void WriteValue(int? value) { }
            public virtual void WriteValue(long value) { }
            public virtual void WriteValue(string? value) { }
            public virtual void WriteValue(object? value) { }
            public virtual void WriteValue(byte[]? value) { }
        }
        public static class JsonConvert
        {
            public static string SerializeObject(object? value, Formatting formatting) => null;
            public static string SerializeObject(object? value, JsonSerializerSettings? settings) => null;
        }
    """,
    "src/Tests.cs": """
        namespace Acme.Json;
        public class WriterTests
        {
            public void Run(JsonWriter writer, int? maybe, object thing, Order o)
            {
                writer.WriteValue(1);
                writer.WriteValue(maybe);
                writer.WriteValue(default(int?));
                writer.WriteValue((int?)null);
                writer.WriteValue(long.MaxValue);
                writer.WriteValue((byte[])null);
                writer.WriteValue(o.Total);
                JsonConvert.SerializeObject(thing, Formatting.Indented);
            }
        }
    """,
}


def test_nullable_value_types_enums_and_undecided_sets():
    res = _resolution(WRITER)
    run = _edges_of(res, "WriterTests.Run")
    assert run == {
        "JsonWriter.WriteValue": "exact",  # WriteValue(1): int
        "JsonWriter.WriteValue#2": "exact",  # `int? maybe`, `default(int?)`, `(int?)null`
        "JsonWriter.WriteValue#3": "exact",  # long.MaxValue
        "JsonWriter.WriteValue#6": "exact",  # (byte[])null
        "JsonConvert.SerializeObject": "exact",  # Formatting.Indented: the enum's member
    }
    # `WriteValue(o.Total)`: the argument's type unknown, six members fit: no edge
    assert res.unresolved["src.Tests.Acme.Json.WriterTests.Run"] == 1


def test_delegate_arity_and_a_delegate_fields_result_choose_overloads():
    files = {
        "Dapper/SqlMapper.cs": """
            namespace Dapper;
            public static partial class SqlMapper
            {
                public static IEnumerable<TReturn> Query<TFirst, TSecond, TReturn>(this IDbConnection cnn, string sql, Func<TFirst, TSecond, TReturn> map, object? param = null) => null;
                public static IEnumerable<TReturn> Query<TFirst, TSecond, TThird, TReturn>(this IDbConnection cnn, string sql, Func<TFirst, TSecond, TThird, TReturn> map, object? param = null) => null;
            }
            public sealed class SimpleMemberMap
            {
                public SimpleMemberMap(string columnName, PropertyInfo property) { }
                public SimpleMemberMap(string columnName, FieldInfo field) { }
            }
        """,
        "Dapper.Rainbow/Database.cs": """
            namespace Dapper;
            public class Database
            {
                private DbConnection _connection;
                private readonly Func<Type, string, PropertyInfo?> _propertySelector;

                public IEnumerable<TReturn> Query<TFirst, TSecond, TReturn>(string sql, Func<TFirst, TSecond, TReturn> map, dynamic param = null) =>
                    _connection.Query(sql, map, param as object);

                public SimpleMemberMap? GetMember(Type type, string columnName)
                {
                    var prop = _propertySelector(type, columnName);
                    return prop is not null ? new SimpleMemberMap(columnName, prop) : null;
                }
            }
        """,
    }
    res = _resolution(files)
    # `map`, a Func of three type arguments: the three-type Query, not the four-type one
    assert _edges_of(res, "Database.Query") == {"SqlMapper.Query": "exact"}
    # `prop`, what a `Func<Type, string, PropertyInfo?>` returns: the PropertyInfo member
    assert _edges_of(res, "Database.GetMember") == {"SimpleMemberMap.SimpleMemberMap": "exact"}


def test_a_static_constructor_is_never_the_callee_and_an_override_keeps_its_nullable():
    files = {
        "src/Settings.cs": """
            namespace Acme.Json;
            public class JsonSerializerSettings
            {
                static JsonSerializerSettings() { }
                public JsonSerializerSettings() { }
            }
            public class JsonTextWriter
            {
                public virtual void WriteValue(Guid value) { }
                public virtual void WriteValue(Guid? value) { }
            }
            public class CountingWriter : JsonTextWriter
            {
                public override void WriteValue(Guid? value) { }
            }
            public class TraceWriter
            {
                private readonly JsonTextWriter _textWriter;
                public void Write(Guid value)
                {
                    var settings = new JsonSerializerSettings { };
                    _textWriter.WriteValue(value);
                }
            }
        """
    }
    write = _edges_of(_resolution(files), "TraceWriter.Write")
    # `new JsonSerializerSettings { }`: the instance constructor, not `static ..()`
    # `WriteValue(Guid)`: its own member; CountingWriter overrides the `Guid?` one, not this
    assert write == {
        "JsonSerializerSettings.JsonSerializerSettings#2": "exact",
        "JsonTextWriter.WriteValue": "exact",
    }


def test_partial_bases_inherited_overloads_and_written_type_arguments():
    files = {
        "src/JsonWriter.cs": """
            namespace Acme.Json;
            public abstract class JsonWriter
            {
                public virtual void WriteValue(Guid value) { }
                public virtual void WriteValue(Guid? value) { }
                public virtual void WriteValue(object? value) { }
            }
        """,
        "src/JsonTextWriter.cs": """
            namespace Acme.Json;
            public partial class JsonTextWriter : JsonWriter
            {
                public override void WriteValue(Guid value) { }
                public override void WriteValue(object? value) { }
            }
        """,
        "src/JsonTextWriter.Async.cs": """
            namespace Acme.Json;
            public partial class JsonTextWriter
            {
                public Task FlushAsync() => null;
            }
        """,
        "src/JsonConvert.cs": """
            namespace Acme.Json;
            public static class JsonConvert
            {
                public static object? DeserializeObject(string value) => null;
                public static T? DeserializeObject<T>(string value) => default;
            }
        """,
        "src/Trace.cs": """
            namespace Acme.Json;
            public class Trace
            {
                public void Write(JsonTextWriter writer, Guid? value, string json)
                {
                    writer.WriteValue(value);
                    JsonConvert.DeserializeObject<List<int>>(json);
                    JsonConvert.DeserializeObject(json);
                }
            }
        """,
    }
    write = _edges_of(_resolution(files), "Trace.Write")
    # the part in JsonTextWriter.Async.cs names no base; the other part's `: JsonWriter` counts,
    # and JsonTextWriter does not override WriteValue(Guid?): JsonWriter's is the one called
    assert write == {
        "JsonWriter.WriteValue#2": "exact",
        "JsonConvert.DeserializeObject#2": "exact",  # `<List<int>>`: the generic member
        "JsonConvert.DeserializeObject": "exact",  # none written: T cannot be inferred
    }


def test_an_extension_chosen_on_a_typed_receiver_is_not_chosen_again():
    files = {
        "Dapper/SqlMapper.Async.cs": """
            namespace Dapper;
            public static partial class SqlMapper
            {
                public static Task<IEnumerable<dynamic>> QueryAsync(this IDbConnection cnn, string sql, object? param = null) => null;
                public static Task<IEnumerable<object>> QueryAsync(this IDbConnection cnn, Type type, string sql, object? param = null) => null;
            }
        """,
        "tests/AsyncTests.cs": """
            namespace Dapper.Tests;
            public class AsyncTests
            {
                public async Task TypeBased(DbConnection mars, Type type)
                {
                    await mars.QueryAsync(type, "select @A as [A]", new { A = 123 });
                }
            }
        """,
    }
    # `mars`, a DbConnection: the extension whose parameters after `this` take (Type, string, ..)
    assert _edges_of(_resolution(files), "AsyncTests.TypeBased") == {
        "SqlMapper.QueryAsync#2": "exact"
    }


def test_lambda_arity_and_an_extension_reached_by_name_takes_its_receiver():
    files = {
        "src/Utilities/LinqBridge.cs": """
            namespace Acme.Utilities;
            static partial class Enumerable
            {
                public static IEnumerable<TResult> SelectMany<TSource, TResult>(this IEnumerable<TSource> source, Func<TSource, IEnumerable<TResult>> selector) => null;
                public static IEnumerable<TResult> SelectMany<TSource, TResult>(this IEnumerable<TSource> source, Func<TSource, int, IEnumerable<TResult>> selector) => null;
            }
            static class StringUtils
            {
                public static string FormatWith(this string format, IFormatProvider provider, object? arg0) => null;
                private static string FormatWith(this string format, IFormatProvider provider, params object?[] args) => null;
            }
        """,
        "src/Resolver.cs": """
            namespace Acme.Utilities;
            public class Resolver
            {
                public List<Type> Hierarchy(Type type) => null;
                public void Members(Type type, string name)
                {
                    Hierarchy(type).SelectMany(baseType => baseType.GetMembers());
                    var message = "Unexpected end when setting {0}'s value.".FormatWith(CultureInfo.InvariantCulture, name);
                }
            }
        """,
    }
    members = _edges_of(_resolution(files), "Resolver.Members")
    # `baseType => ..` takes one parameter: the Func<TSource, IEnumerable<TResult>> member;
    # `"..".FormatWith(provider, name)`: the string is its `this`, (provider, arg0) the rest
    assert members == {
        "Resolver.Hierarchy": "exact",
        "Enumerable.SelectMany": "unique_name",
        "StringUtils.FormatWith": "unique_name",
    }


def test_a_long_type_argument_keeps_its_count():
    files = {
        "Dapper/SqlMapper.cs": """
            namespace Dapper;
            public static partial class SqlMapper
            {
                public static dynamic? QuerySingleOrDefault(this IDbConnection cnn, string sql, object? param = null) => null;
                public static T? QuerySingleOrDefault<T>(this IDbConnection cnn, string sql, object? param = null) => default;
            }
        """,
        "tests/TupleTests.cs": """
            namespace Dapper.Tests;
            public class TupleTests
            {
                public void Fifteen(IDbConnection connection)
                {
                    var val = connection.QuerySingleOrDefault<(int e1, int e2, int e3, int e4, int e5, int e6, int e7, int e8, int e9, int e10, int e11, int e12, int e13, int e14, int e15)?>(
                        "select 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 where 1 = 2");
                }
            }
        """,
    }
    assert _edges_of(_resolution(files), "TupleTests.Fifteen") == {
        "SqlMapper.QuerySingleOrDefault#2": "exact"
    }


def test_an_error_node_without_a_namespace_is_no_scope(parse):
    # `#if` inside a struct's modifiers breaks the declaration (MessagePack's MessagePackReader):
    # the ERROR node holds no `namespace` keyword, so it names no scope
    code = """
namespace MessagePack
{
#if MESSAGEPACK_INTERNAL
    internal
#else
    public
#endif
    ref partial struct MessagePackReader
    {
        public MessagePackReader(ReadOnlyMemory<byte> memory) { }
        public MessagePackReader(in ReadOnlySequence<byte> sequence) { }
    }
}
"""
    p = parse("csharp", "src/MessagePack/MessagePackReader.cs", code)
    ids = [s.id for s in p.result.symbols if s.kind != "chunk"]
    assert all(".MessagePackReader.MessagePackReader.MessagePackReader" not in i for i in ids)
    assert "src.MessagePack.MessagePackReader.MessagePack.MessagePackReader" in ids


def test_a_value_made_by_new_runs_its_own_type_s_method_not_overrides():
    files = {
        "Src/Serialization/DefaultContractResolver.cs": """
            namespace Newtonsoft.Json.Serialization;
            public class DefaultContractResolver
            {
                public virtual JsonContract ResolveContract(Type type) => null;
            }
        """,
        "Tests/TestObjects/IgnoredPropertiesContractResolver.cs": """
            namespace Newtonsoft.Json.Tests.TestObjects;
            using Newtonsoft.Json.Serialization;
            public class IgnoredPropertiesContractResolver : DefaultContractResolver
            {
                public override JsonContract ResolveContract(Type type) => null;
            }
        """,
        "Tests/Issues/Issue2450.cs": """
            namespace Newtonsoft.Json.Tests.Issues;
            using Newtonsoft.Json.Serialization;
            public class Issue2450
            {
                public void Made()
                {
                    var resolver = new DefaultContractResolver();
                    var contract = resolver.ResolveContract(typeof(Dict));
                }
                public void Given(DefaultContractResolver resolver)
                {
                    var contract = resolver.ResolveContract(typeof(Dict));
                }
            }
        """,
    }
    res = _resolution(files)
    # `var resolver = new DefaultContractResolver()`: exactly that class, so a subclass's
    # override never runs; a parameter of that type may hold a subclass (fan-out kept)
    assert _edges_of(res, "Issue2450.Made") == {
        "Serialization.DefaultContractResolver": "exact",  # (no constructor: the class)
        "DefaultContractResolver.ResolveContract": "exact",
    }
    assert _edges_of(res, "Issue2450.Given") == {
        "DefaultContractResolver.ResolveContract": "exact",
        "IgnoredPropertiesContractResolver.ResolveContract": "override",
    }


def test_an_explicit_interface_implementation_is_reached_only_through_its_interface():
    files = {
        "Src/Linq/JContainer.cs": """
            namespace Newtonsoft.Json.Linq;
            public abstract class JContainer : JToken, IList<JToken>, IList
            {
                public virtual void Add(object? content) { }
                void ICollection<JToken>.Add(JToken item)
                {
                    Add(item);
                }
                int IList.IndexOf(object? value) => 0;
            }
            public class JArray : JContainer
            {
                public int IndexOf(JToken item) => 0;
            }
        """,
        "Src/Linq/JTokenWriter.cs": """
            namespace Newtonsoft.Json.Linq;
            public class JTokenWriter
            {
                private JContainer? _parent;
                public void WriteToken(JToken value)
                {
                    _parent.Add(value);
                }
                public int Find(JArray array, JValue v)
                {
                    return array.IndexOf(v);
                }
                public void Untyped(object descriptor)
                {
                    descriptor.GetType().GetProperties();
                }
            }
        """,
        "Dapper/DapperRow.cs": """
            namespace Dapper;
            public sealed class DapperRowTypeDescriptor : ICustomTypeDescriptor
            {
                PropertyDescriptorCollection ICustomTypeDescriptor.GetProperties() => null;
            }
        """,
    }
    res = _resolution(files)
    # `void ICollection<JToken>.Add(JToken)` is no member by name: `Add(item)` in it, and
    # `_parent.Add(value)` on a JContainer, call the public `Add(object)`
    assert _edges_of(res, "Linq.JContainer.Add#2") == {"JContainer.Add": "exact"}
    assert _edges_of(res, "JTokenWriter.WriteToken") == {"JContainer.Add": "exact"}
    # `array.IndexOf(v)` on a JArray: JArray.IndexOf(JToken), not JContainer's `IList.IndexOf`
    assert _edges_of(res, "JTokenWriter.Find") == {"JArray.IndexOf": "exact"}
    # nor a name guess: `type.GetProperties()` is not the descriptor's explicit implementation
    assert _edges_of(res, "JTokenWriter.Untyped") == {}


def test_a_constructor_initializer_chooses_the_constructor_its_arguments_fit():
    files = {
        "Src/Tests/Issues/Issue1682.cs": """
            namespace Newtonsoft.Json.Tests.Issues;
            public abstract class BaseSerializable : ISerializable
            {
                public BaseSerializable() { }
                protected BaseSerializable(SerializationInfo info, StreamingContext context) { }
            }
            public class ConcreteSerializable : BaseSerializable
            {
                public ConcreteSerializable() { }
                protected ConcreteSerializable(SerializationInfo info, StreamingContext context)
                    : base(info, context)
                {
                }
                public ConcreteSerializable(string name) : this(null, default) { }
            }
            public class JValue
            {
                internal JValue(object? value, JTokenType type) { }
                internal JValue(JValue other, JsonCloneSettings? settings)
                    : this(other.Value, other.Type)
                {
                }
            }
        """,
    }
    res = _resolution(files)
    # `: base(info, context)` is the base's two-parameter constructor, `: this(null, default)`
    # the class's own: not the first constructor of each
    assert _edges_of(res, "ConcreteSerializable.ConcreteSerializable#2") == {
        "BaseSerializable.BaseSerializable#2": "exact"
    }
    assert _edges_of(res, "ConcreteSerializable.ConcreteSerializable#3") == {
        "ConcreteSerializable.ConcreteSerializable#2": "exact"
    }
    # two members take two arguments of unknown types; the constructor itself is not one
    assert _edges_of(res, "JValue.JValue#2") == {"JValue.JValue": "exact"}


def test_a_string_concatenation_is_a_string_argument(parse):
    files = {
        "Dapper/SqlMapper.cs": """
            namespace Dapper;
            public static partial class SqlMapper
            {
                public static IEnumerable<T> Query<T>(this IDbConnection cnn, string sql, object? param = null) => null;
                public static IEnumerable<T> Query<T>(this IDbConnection cnn, CommandDefinition command) => null;
            }
            public struct CommandDefinition { }
        """,
        "tests/TypeHandlerTests.cs": """
            namespace Dapper.Tests;
            public class TypeHandlerTests
            {
                private IDbConnection connection;
                private void Generic<T>(T expected, string dbType)
                {
                    var query = connection.Query<T>("select cast(1 as " + dbType + ")").Single();
                }
            }
        """,
    }
    p = parse("csharp", "tests/TypeHandlerTests.cs", files["tests/TypeHandlerTests.cs"])
    calls = p.calls("tests.TypeHandlerTests.Dapper.Tests.TypeHandlerTests.Generic")
    assert calls[0] == "(connection: IDbConnection).Query<T>/(string)"
    # the `string sql` member, not the one taking a CommandDefinition (which needs no default)
    assert _edges_of(_resolution(files), "TypeHandlerTests.Generic") == {"SqlMapper.Query": "exact"}


def test_conditional_directives_are_blanked_and_every_branch_kept(parse):
    # newtonsoft-json's JsonTextReader.cs: `#if` among an enum's members and between an `if`
    # block and its `else` broke the grammar's parse (an `if` read as a function, and in the
    # whole file JsonTextReader's methods read as functions outside the class, so a call on a
    # JsonTextReader reached the abstract JsonReader.Read); the directive lines are blanked
    code = """
namespace Newtonsoft.Json
{
    internal enum ReadType
    {
        Read,
        ReadAsDateTime,
#if HAVE_DATE_TIME_OFFSET
        ReadAsDateTimeOffset,
#endif
        ReadAsDouble
    }

    public partial class JsonTextReader : JsonReader
    {
#if DEBUG
        internal int LargeBufferLength { get; set; } = int.MaxValue / 2;
#else
        private const int LargeBufferLength = int.MaxValue / 2;
#endif

        public JsonTextReader(TextReader reader)
        {
            _reader = reader;
        }

        private void ParseString(ReadType readType)
        {
            if (readType == ReadType.ReadAsDateTime)
            {
                dateParseHandling = DateParseHandling.DateTime;
            }
#if HAVE_DATE_TIME_OFFSET
            else if (readType == ReadType.ReadAsDateTimeOffset)
            {
                dateParseHandling = DateParseHandling.DateTimeOffset;
            }
#endif
            else
            {
                dateParseHandling = DateParseHandling.None;
            }
        }

        public override bool Read() => true;
    }
}
"""
    p = parse("csharp", "Src/JsonTextReader.cs", code)
    kinds = [(s.kind, s.name) for s in p.result.symbols if s.kind in ("function", "method")]
    assert kinds == [("method", "JsonTextReader"), ("method", "ParseString"), ("method", "Read")]
    # the lines and offsets are the file's: Read is where it is written
    read = next(s for s in p.result.symbols if s.name == "Read")
    assert (
        read.start_line
        == code.lstrip("\n").splitlines().index("        public override bool Read() => true;") + 1
    )


def test_a_private_member_is_chosen_only_inside_its_type_and_an_array_fills_params():
    files = {
        "Dapper/CommandDefinition.cs": """
            namespace Dapper;
            public readonly struct CommandDefinition
            {
                public CommandDefinition(string commandText, object? parameters = null, CommandFlags flags = CommandFlags.Buffered) { }
                private CommandDefinition(object? parameters, CommandFlags flags) : this() { }
                internal static CommandDefinition ForCallback(object? parameters, CommandFlags flags) => new CommandDefinition(parameters, flags);
            }
        """,
        "Dapper.Rainbow/Database.cs": """
            namespace Dapper;
            public abstract partial class Database<TDatabase>
            {
                protected Action<TDatabase> CreateTableConstructor(Type tableType)
                {
                    return CreateTableConstructor(new[] { tableType });
                }
                protected Action<TDatabase> CreateTableConstructor(params Type[] tableTypes) => null;
            }
        """,
        "benchmarks/DapperCacheImpact.cs": """
            namespace Dapper.Tests.Performance;
            public class DapperCacheImpact
            {
                public void Cache() => _connection.Execute(new CommandDefinition("select 42", flags: CommandFlags.NoCache));
            }
        """,
    }
    res = _resolution(files)
    # outside the struct only the public constructor can be called; inside, the private one
    assert _edges_of(res, "DapperCacheImpact.Cache") == {
        "CommandDefinition.CommandDefinition": "exact"
    }
    assert _edges_of(res, "CommandDefinition.ForCallback") == {
        "CommandDefinition.CommandDefinition#2": "exact"
    }
    # `new[] { tableType }` is a Type[]: the `params Type[]` member, not the method itself
    assert _edges_of(res, "Database.CreateTableConstructor") == {
        "Database.CreateTableConstructor#2": "exact"
    }


def test_a_plain_type_beside_a_generic_one_of_its_name_is_found_by_arity():
    files = {
        "Dapper/SqlMapper.Identity.cs": """
            namespace Dapper;
            public static partial class SqlMapper
            {
                internal sealed class Identity<TFirst, TSecond> : Identity
                {
                    internal Identity(string sql, CommandType? commandType, IDbConnection connection, Type type, Type? parametersType, int gridIndex = 0)
                        : base(sql, commandType, connection.ConnectionString, type, parametersType, 0, gridIndex)
                    { }
                }
                public class Identity
                {
                    internal Identity(string sql, CommandType? commandType, IDbConnection connection, Type? type, Type? parametersType) { }
                    private protected Identity(string sql, CommandType? commandType, string connectionString, Type? type, Type? parametersType, int otherTypesHash, int gridIndex) { }
                }
            }
        """,
        "Dapper/SqlMapper.cs": """
            namespace Dapper;
            public static partial class SqlMapper
            {
                private static void QueryMultipleImpl(IDbConnection cnn, CommandDefinition command)
                {
                    var identity = new Identity(command.CommandText, command.CommandTypeDirect, cnn, typeof(GridReader), null);
                }
            }
        """,
    }
    res = _resolution(files)
    # `new Identity(..)` names the plain class (its id `Identity#2`: the generic one came first)
    assert _edges_of(res, "SqlMapper.QueryMultipleImpl") == {"Identity#2.Identity": "exact"}
    # and the generic one's `: base(..)` is the plain class's seven-parameter constructor
    assert _edges_of(res, "Identity.Identity") == {"Identity#2.Identity#2": "exact"}


def test_a_null_forgiving_value_keeps_what_it_was_made_by():
    files = {
        "tests/TestBase.cs": """
            namespace Dapper.Tests;
            public static class DatabaseProvider<TProvider> where TProvider : DatabaseProvider
            {
                public static TProvider Instance { get; } = new();
            }
            public abstract class DatabaseProvider
            {
                public abstract DbProviderFactory Factory { get; }
                public DbConnection GetOpenConnection()
                {
                    var conn = Factory.CreateConnection()!;
                    conn.Open();
                    return conn;
                }
            }
            public sealed class SystemSqlClientProvider : DatabaseProvider
            {
                public override DbProviderFactory Factory => System.Data.SqlClient.SqlClientFactory.Instance;
            }
        """,
        "tests/Helpers/TransactedConnection.cs": """
            namespace Dapper.Tests;
            internal class TransactedConnection : IDbConnection
            {
                private readonly IDbConnection _conn;
                public void Open() => _conn.Open();
            }
        """,
    }
    res = _resolution(files)
    # `conn` is what a library's CreateConnection() returns (`Factory`, an abstract property,
    # has the type its override declares): its Open() is the library's, not the repository's
    # only Open (a guess by name)
    assert _edges_of(res, "DatabaseProvider#2.GetOpenConnection") == {}
    assert res.external["tests.TestBase.Dapper.Tests.DatabaseProvider#2.GetOpenConnection"] == 2


# --- undecided overload sets make no edge (issue 21, branch csharpov) --------------------------

UNDECIDED = {
    "Src/Newtonsoft.Json/JsonWriter.cs": """
        namespace Newtonsoft.Json;
        public abstract class JsonWriter
        {
            public virtual void WriteValue(string? value) { }
            public virtual void WriteValue(int value) { }
            public virtual void WriteValue(bool value) { }

            public void WriteToken(JsonReader reader)
            {
                WriteValue(reader.Value);  // the value's type is not known: any of three
                WriteValue(true);  // a bool: WriteValue(bool)
            }
        }
    """,
    "Src/Newtonsoft.Json/Linq/JArray.cs": """
        namespace Newtonsoft.Json.Linq;
        public class JArray
        {
            public JArray() { }
            public JArray(JArray other) { }
            public JArray(object content) { }
            public JArray(params object[] content) : this((object)content) { }
            public JArray(string name, int size) : this(name) { }
        }
    """,
    "Src/Newtonsoft.Json/Utilities/Guard.cs": """
        namespace Newtonsoft.Json.Utilities;
        public static class Guard
        {
            public static T Check<T>(T value) where T : class => value;
            public static T Check<T>(T value) where T : struct => value;

            public static void Use(object thing)
            {
                Check(thing.ToString());
            }
        }
    """,
    "Src/Newtonsoft.Json/Utilities/StringUtils.cs": """
        namespace Newtonsoft.Json.Utilities;
        public static class StringUtils
        {
            public static bool StartsWith(this string source, char value) => false;
            public static bool StartsWith(this string source, string text) => false;

            public static bool Named(string name, Prefix p)
            {
                return name.StartsWith(p.Value);
            }
        }
    """,
}


def test_an_overload_set_the_arguments_leave_undecided_makes_no_edge():
    res = _resolution(UNDECIDED)
    token = _edges_of(res, "JsonWriter.WriteToken")
    # `WriteValue(reader.Value)`: three members take it; read strictly, two edges of three
    # would be wrong, so none (`ambiguous`); `WriteValue(true)` decides
    assert token == {"JsonWriter.WriteValue#3": "exact"}
    assert res.by_language["csharp"]["ambiguous"] >= 1
    assert (
        res.unresolved["Src.Newtonsoft.Json.JsonWriter.Newtonsoft.Json.JsonWriter.WriteToken"] == 1
    )


def test_a_constructor_chain_is_undecided_unless_one_member_but_itself_is_left():
    res = _resolution(UNDECIDED)
    # `: this((object)content)`: `JArray(JArray)` and `JArray(object)` both take an argument
    # of unknown type (itself, the vararg, is no candidate): no edge
    assert _edges_of(res, "JArray.JArray#4") == {}
    # `: this(name)` in `JArray(string, int)`: of one argument, a string is no `JArray`
    assert _edges_of(res, "JArray.JArray#5") == {"JArray.JArray#3": "exact"}


def test_members_differing_only_by_constraints_are_two_and_extensions_alike_none():
    res = _resolution(UNDECIDED)
    # `Check<T>(T) where T : class` and `.. where T : struct`: two methods, not one
    assert _edges_of(res, "Guard.Use") == {}
    # `name.StartsWith(p.Value)`: the argument's type is not known, both extensions take a
    # string receiver: no edge
    assert _edges_of(res, "StringUtils.Named") == {}


def test_a_type_called_by_name_is_the_one_of_the_generic_arity_written():
    res = _resolution(
        {
            "Dapper/SqlMapper.Async.cs": """
            namespace Dapper;
            public static partial class SqlMapper
            {
                public static void Run(IDbConnection cnn, string sql, object obj)
                {
                    var identity = new Identity(sql, cnn, null, obj.GetType());
                    var typed = new Identity<int, string>(sql, cnn, null, obj.GetType());
                }
            }
            """,
            "Dapper/SqlMapper.Identity.cs": """
            namespace Dapper;
            public static partial class SqlMapper
            {
                internal sealed class Identity<TFirst, TSecond> : Identity
                {
                    internal Identity(string sql, IDbConnection connection, Type type, Type? parametersType, int gridIndex = 0) : base(sql, connection, type, parametersType) { }
                }
                public class Identity
                {
                    internal Identity(string sql, IDbConnection connection, Type? type, Type? parametersType) { }
                }
            }
            """,
        }
    )
    # `new Identity(..)` without type arguments: the plain class's constructor, never the
    # generic `Identity<TFirst, TSecond>`'s declared before it
    assert _edges_of(res, "SqlMapper.Run") == {
        "Identity#2.Identity": "exact",
        "Identity.Identity": "exact",
    }


def test_an_extension_method_is_a_candidate_only_where_its_namespace_is_seen():
    res = _resolution(
        {
            "Src/Newtonsoft.Json/Utilities/LinqBridge.cs": """
            namespace Newtonsoft.Json.Utilities.LinqBridge
            {
                internal static class Enumerable
                {
                    public static IEnumerable<TResult> Select<TSource, TResult>(this IEnumerable<TSource> source, Func<TSource, TResult> selector) => null;
                }
            }
            """,
            "Src/Newtonsoft.Json/Utilities/FSharpUtils.cs": """
            using System.Linq;
            namespace Newtonsoft.Json.Utilities
            {
                internal static class FSharpUtils
                {
                    public static object Build(IEnumerable<KeyValuePair<string, int>> values)
                    {
                        return values.Select(kv => kv.Key);
                    }
                }
            }
            """,
            "Src/Newtonsoft.Json/Utilities/ReflectionUtils.cs": """
            using Newtonsoft.Json.Utilities.LinqBridge;
            namespace Newtonsoft.Json.Utilities
            {
                internal static class ReflectionUtils
                {
                    public static object Names(IEnumerable<KeyValuePair<string, int>> values)
                    {
                        return values.Select(kv => kv.Key);
                    }
                }
            }
            """,
        }
    )
    # `..Utilities.LinqBridge` is inside `..Utilities`, not around it: FSharpUtils, which does
    # not open it, calls System.Linq's `Select`; ReflectionUtils opens it
    assert _edges_of(res, "FSharpUtils.Build") == {}
    assert _edges_of(res, "ReflectionUtils.Names") == {"Enumerable.Select": "exact"}
