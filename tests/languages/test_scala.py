from codebot.core.model import Import, Parameter

PATH = "src/main/scala/com/acme/orders/OrderService.scala"
M = "src.main.scala.com.acme.orders.OrderService"

SOURCE = """
package com.acme.orders

import scala.concurrent.{ExecutionContext => EC, Future}
import scala.util.control.NonFatal
import com.acme.model._
import java.util.{List => JList, Map => _, _}
import cats.syntax.all.*, cats.data.NonEmptyList as Nel

/** Places and looks up orders.
  *
  * @param repo where orders live
  */
@Singleton
class OrderService(repo: OrderRepository, val name: String = "orders")(implicit ec: EC)
    extends BaseService(repo)
    with OrderApi
    with Logging {

  /** Places an order. */
  @throws[java.io.IOException]
  def place(id: String, quantity: Int = 1, tags: String*): Future[Order] = {
    val order = new Order(id, quantity)
    this.repo.save(order)
    super.audit(order)
    repo.findById(id).map(OrderService.copy)
  }

  def place(ids: List[String]): Future[List[Order]] = Future.traverse(ids)(place(_))

  def this(repo: OrderRepository) = this(repo, "default")(EC.global)

  private def sorted[T](xs: List[T])(implicit ord: Ordering[T]): List[T] = xs.sorted

  class Cursor {
    def next(): Option[Order] = repo.next()
  }
}

object OrderService extends Factory[OrderService] {
  def copy(o: Order): Order = o.copy()

  def apply(repo: OrderRepository): OrderService = new OrderService(repo)(EC.global)
}

trait OrderApi {
  def place(id: String, quantity: Int = 1, tags: String*): Future[Order]
  def priority: Int = 0
}

case class Line(sku: String, count: Int = 1) extends Ordered[Line] with Serializable {
  def compare(that: Line): Int = count - that.count
}

sealed trait Event
case object Placed extends Event

enum Status(val label: String) {
  case Open extends Status("open")
  case Closed extends Status("closed")

  def display: String = label.toUpperCase
}

extension (s: String)
  def shout: String = s.toUpperCase + "!"

def fetchAll(service: OrderService, ids: List[String] = Nil)(using ec: EC): Future[List[Order]] =
  service.place(ids)
"""


def test_ids_kinds_lines(parse):
    p = parse("scala", PATH, SOURCE)
    assert p.ids == [
        f"{M}.OrderService",
        f"{M}.OrderService.place",
        f"{M}.OrderService.place#2",
        f"{M}.OrderService.this",
        f"{M}.OrderService.sorted",
        f"{M}.OrderService.Cursor",
        f"{M}.OrderService.Cursor.next",
        # The companion object shares its class's name: same id, so it gets `#2`.
        f"{M}.OrderService#2",
        f"{M}.OrderService#2.copy",
        f"{M}.OrderService#2.apply",
        f"{M}.OrderApi",
        f"{M}.OrderApi.place",
        f"{M}.OrderApi.priority",
        f"{M}.Line",
        f"{M}.Line.compare",
        f"{M}.Event",
        f"{M}.Placed",
        f"{M}.Status",
        f"{M}.Status.display",
        f"{M}.String.shout",
        f"{M}.fetchAll",
    ]
    spans = {s.id: (s.kind, s.start_line, s.end_line, s.class_name) for s in p.result.symbols}
    assert spans[f"{M}.OrderService"] == ("class", 13, 37, None)
    assert spans[f"{M}.OrderService.place"] == ("method", 20, 26, "OrderService")
    assert spans[f"{M}.OrderService.Cursor.next"] == ("method", 35, 35, "Cursor")
    assert spans[f"{M}.OrderService#2"] == ("module", 39, 43, None)
    assert spans[f"{M}.OrderService#2.copy"] == ("method", 40, 40, "OrderService")
    assert spans[f"{M}.OrderApi"] == ("trait", 45, 48, None)
    assert spans[f"{M}.OrderApi.place"] == ("method", 46, 46, "OrderApi")
    assert spans[f"{M}.Line"] == ("class", 50, 52, None)
    assert spans[f"{M}.Event"] == ("trait", 54, 54, None)
    assert spans[f"{M}.Placed"] == ("module", 55, 55, None)
    assert spans[f"{M}.Status"] == ("enum", 57, 62, None)
    assert spans[f"{M}.Status.display"] == ("method", 61, 61, "Status")
    assert spans[f"{M}.String.shout"] == ("method", 65, 65, "String")
    assert spans[f"{M}.fetchAll"] == ("function", 67, 68, None)


def test_class_doc_annotations_bases(parse):
    p = parse("scala", PATH, SOURCE)
    cls = p[f"{M}.OrderService"]
    assert cls.docstring == "Places and looks up orders.\n\n@param repo where orders live"
    assert cls.decorators == ("Singleton",)
    assert cls.bases == ("BaseService", "OrderApi", "Logging")
    assert cls.signature == (
        '@Singleton class OrderService(repo: OrderRepository, val name: String = "orders")'
        "(implicit ec: EC) extends BaseService(repo) with OrderApi with Logging"
    )
    assert p[f"{M}.OrderService#2"].bases == ("Factory[OrderService]",)
    assert p[f"{M}.Line"].bases == ("Ordered[Line]", "Serializable")
    assert p[f"{M}.Placed"].bases == ("Event",)


def test_defs_parameters_defaults_returns(parse):
    p = parse("scala", PATH, SOURCE)
    place = p[f"{M}.OrderService.place"]
    assert place.parameters == (
        Parameter("id", "String"),
        Parameter("quantity", "Int", "1"),
        Parameter("tags", "String*"),
    )
    assert place.return_type == "Future[Order]"
    assert place.decorators == ("throws[java.io.IOException]",)
    assert place.docstring == "Places an order."
    assert place.signature == (
        "@throws[java.io.IOException] def place(id: String, quantity: Int = 1, tags: String*): "
        "Future[Order]"
    )
    # Every parameter clause, implicit and using ones included; type parameters are not.
    assert p[f"{M}.OrderService.sorted"].parameters == (
        Parameter("xs", "List[T]"),
        Parameter("ord", "Ordering[T]"),
    )
    assert p[f"{M}.fetchAll"].parameters == (
        Parameter("service", "OrderService"),
        Parameter("ids", "List[String]", "Nil"),
        Parameter("ec", "EC"),
    )
    assert p[f"{M}.OrderService.this"].parameters == (Parameter("repo", "OrderRepository"),)
    assert p[f"{M}.OrderApi.place"].signature == (
        "def place(id: String, quantity: Int = 1, tags: String*): Future[Order]"
    )
    assert p[f"{M}.OrderApi.priority"].return_type == "Int"


def test_calls(parse):
    p = parse("scala", PATH, SOURCE)
    assert p.calls(f"{M}.OrderService.place") == [
        "new Order",  # `new`: the class, not its companion's `apply`
        "this.repo.save",
        "super.audit",
        "(repo: OrderRepository).findById",  # a parameter's declared type
        "(?).map",  # on the value `findById(id)` returns: not the caller's own `map`
    ]
    # A curried call is recorded once, by its first clause.
    assert p.calls(f"{M}.OrderService.place#2") == ["Future.traverse", "place"]
    assert p.calls(f"{M}.OrderService.this") == ["this"]
    assert p.calls(f"{M}.OrderService#2.apply") == ["new OrderService"]
    assert p.calls(f"{M}.OrderService#2.copy") == ["(o: Order).copy"]
    assert p.calls(f"{M}.OrderService.Cursor.next") == [
        "(repo: OrderRepository).next"
    ]  # a class parameter
    assert p.calls(f"{M}.fetchAll") == ["(service: OrderService).place"]


def test_imports(parse):
    p = parse("scala", PATH, SOURCE)
    assert p.imports == [
        Import("scala.concurrent", "ExecutionContext", "EC", line=3),
        Import("scala.concurrent", "Future", line=3),
        Import("scala.util.control", "NonFatal", line=4),
        Import("com.acme.model", "*", line=5),
        Import("java.util", "List", "JList", line=6),
        Import("java.util", "*", line=6),
        Import("cats.syntax.all", "*", line=7),
        Import("cats.data", "NonEmptyList", "Nel", line=7),
    ]


def test_package_block_and_extension_with_type_parameters(parse):
    code = """
    package com.acme {
      package util {
        object Lists {
          extension [T](xs: List[T]) {
            def second: T = xs(1)
          }
        }
      }
    }
    """
    p = parse("scala", "Lists.scala", code)
    assert p.ids == ["Lists.com.acme.util.Lists", "Lists.com.acme.util.Lists.List.second"]
    second = p["Lists.com.acme.util.Lists.List.second"]
    assert (second.kind, second.class_name, second.return_type) == ("method", "List", "T")


# --- module-level names (issue 21) ---------------------------------------------------------------

NAMES = """
package p
object Config {
  val Timeout = 5
  final val MAX = 10
  var mutable = 1
  def f(): Int = { val local = 1; local }
}
class C {
  val field = 1
}
val top = 1
"""


def test_module_names(parse):
    p = parse("scala", "src/Config.scala", NAMES)
    m = "src.Config"
    kinds = {s.id: s.kind for s in p.result.symbols if s.kind in ("constant", "variable")}
    assert kinds == {
        f"{m}.Config.Timeout": "variable",
        f"{m}.Config.MAX": "constant",
        f"{m}.Config.mutable": "variable",
        f"{m}.top": "variable",
    }


# --- companions, `new`, parameters (issue 21, round 4: circe's wrong edges) ---------------------

CIRCE = {
    "modules/core/src/main/scala/io/circe/Error.scala": """
        package io.circe

        import cats.Eq

        sealed abstract class DecodingFailure(message: String) extends Error
        object DecodingFailure {
          def apply(message: String, ops: => List[CursorOp]): DecodingFailure =
            new DecodingFailure(message) {}
        }
        trait Encoder[A] {
          def apply(a: A): Json
          final def contramap[B](f: B => A): Encoder[B] = new Encoder[B] {
            final def apply(a: B): Json = Encoder.this(f(a))
          }
        }
        object Encoder {
          final def apply[A](implicit instance: Encoder[A]): Encoder[A] = instance
          implicit final val encodeString: Encoder[String] = new Encoder[String] {
            final def apply(a: String): Json = Json.fromString(a)
          }
          final def contramap[A, B](e: Encoder[A])(f: B => A): Encoder[B] = e.contramap(f)
          final val encodeLength: Encoder[String] = Encoder[String].contramap(identity)
        }
        final case class Json(value: String) { def toInt(): Int = 0 }
        object Json { def fromString(s: String): Json = Json(s) }
        object Uses {
          def fail(message: String): DecodingFailure = DecodingFailure(message, Nil)
          def sized[L](toInt: ToInt[L]): Int = toInt()
          def same[W](eqW: Eq[W], a: W, b: W): Boolean = eqW.eqv(a, b)
        }
        class Other { def eqv(a: Any, b: Any): Boolean = true }
        object syntax {
          implicit final class EncoderOps[A](private val value: A) { def asJsonString(): String = ??? }
        }
        object Syntax { def encoded(xs: List[Int]): String = xs.asJsonString() }
    """,
}


def test_companion_apply_new_summoner_and_parameters(resolved):
    calls = resolved("scala", CIRCE)
    m = "modules.core.src.main.scala.io.circe.Error"
    uses = {(src.rsplit(".", 1)[-1], dst) for (src, dst) in calls if src.startswith(f"{m}.Uses.")}
    # `DecodingFailure(message, Nil)`: the companion's apply, not the sealed abstract class
    assert ("fail", f"{m}.DecodingFailure#2.apply") in uses
    assert ("fail", f"{m}.DecodingFailure") not in uses
    # `toInt()` calls the parameter's value; `eqW.eqv` is cats' Eq's: no repository method
    assert not [dst for name, dst in uses if name in ("sized", "same")]
    # a method an implicit class adds to any value (`xs.asJsonString()`): the repository's
    assert (f"{m}.Syntax.encoded", f"{m}.syntax.EncoderOps.asJsonString") in calls
    # `new DecodingFailure(message) {}` in the companion: the class, not the object itself
    assert calls[(f"{m}.DecodingFailure#2.apply", f"{m}.DecodingFailure")] == "exact"
    # `Encoder[String].contramap`: the summoner makes an Encoder, whose contramap is the
    # trait's (not the object's own contramap, nor the anonymous instances' apply)
    length = {dst for (src, dst) in calls if src == f"{m}.Encoder#2.encodeLength"}
    assert length == {f"{m}.Encoder.contramap"}
    # `Json(s)` in `object Json`: the case class (its synthesized apply)
    assert calls[(f"{m}.Json#2.fromString", f"{m}.Json")] == "exact"


VALUES = {
    "modules/core/src/main/scala/io/circe/Decoder.scala": """
        package io.circe

        import cats.MonadError
        import cats.Apply

        final class ChainBuilder[A] {
          def result(): List[A] = Nil
        }

        trait Decoder[A] {
          def decodeJson(j: Json): Either[String, A]
          final def map[B](f: A => B): Decoder[B] = null
        }

        object Decoder {
          final val resultInstance: MonadError[Result, String] = null
          val chained: ChainBuilder[Int] = new ChainBuilder[Int]
          def map2[A, B](a: A, b: B): Decoder[(A, B)] = null
          def find(p: Json => Boolean): Option[Json] = None
          def product[A, B](fa: Decoder[A], fb: Decoder[B]): Decoder[(A, B)] =
            resultInstance.map2(fa, fb)
        }

        trait KeyDecoder[A] { self =>
          def apply(key: String): Option[A]
          final def map[B](f: A => B): KeyDecoder[B] = new KeyDecoder[B] {
            final def apply(key: String): Option[B] = self(key).map(f)
          }
        }

        trait ReprCodec[A] extends Decoder[A] {
          def encodeObject(a: A): JsonObject
        }

        object ReprCodec {
          def encodeObject(a: HNil): JsonObject = JsonObject.empty
        }
    """,
    "modules/core/src/main/scala/io/circe/Uses.scala": """
        package io.circe

        import cats.Apply

        object Uses {
          def path(): List[Int] = {
            val builder = List.newBuilder[Int]
            builder.result()
          }
          def typed(): List[Int] = {
            val mine = new ChainBuilder[Int]
            mine.result()
          }
          def lifted[F[_]](a: F[Int], b: F[Int])(implicit F: Apply[F]) = F.map2(a, b)
          def combined(x: Decoder[Int], y: Decoder[Int]) = Decoder.resultInstance.map2(x, y)
          def viaValue() = Decoder.chained.result()
          def placeholder(xs: List[Json]) = xs.map(_.find(_.isNull))
          def broken(replacements: List[Json]) = replacements
            .find(_.isNull)
          def cons[T](codecForT: ReprCodec[T], t: T) = codecForT.encodeObject(t)
          def decoded(d: Decoder[Int], j: Json) = d.decodeJson(j)
        }
    """,
}


def test_values_of_library_types_and_expressions(resolved):
    calls = resolved("scala", VALUES)
    m = "modules.core.src.main.scala.io.circe"
    uses = {(src.rsplit(".", 1)[-1], dst) for (src, dst) in calls if ".Uses." in src}
    # `List.newBuilder[Int]` is the library's builder: its `result()` is no ChainBuilder.result
    assert not [dst for name, dst in uses if name == "path"]
    # a local of a repository type: its method, exactly
    assert calls[(f"{m}.Uses.Uses.typed", f"{m}.Decoder.ChainBuilder.result")] == "exact"
    # `F: Apply[F]` and `Decoder.resultInstance` (a `val` of a library type): cats' map2, not
    # the object's own
    assert not [dst for name, dst in uses if name in ("lifted", "combined")]
    assert not [
        dst for (src, dst) in calls if src == f"{m}.Decoder.Decoder#2.product" and "map2" in dst
    ]
    # an object's `val` of a repository type: that type's method
    assert calls[(f"{m}.Uses.Uses.viaValue", f"{m}.Decoder.ChainBuilder.result")] == "exact"
    # `_.find(..)` and `replacements\n.find(..)`: a library value's find, not Decoder.find
    assert not [dst for name, dst in uses if name in ("placeholder", "broken")]
    # `self(key).map(f)`: Option's map, not the trait's own
    assert not [dst for (src, dst) in calls if dst == f"{m}.Decoder.KeyDecoder.map"]
    # an instance of the trait: the trait's member, never its companion object's
    assert (f"{m}.Uses.Uses.cons", f"{m}.Decoder.ReprCodec#2.encodeObject") not in calls
    assert calls[(f"{m}.Uses.Uses.cons", f"{m}.Decoder.ReprCodec.encodeObject")] == "exact"
    assert calls[(f"{m}.Uses.Uses.decoded", f"{m}.Decoder.Decoder.decodeJson")] == "exact"


def test_override_fan_out_skips_what_a_companion_lends(resolved):
    files = {
        "modules/core/src/main/scala/io/circe/Decoder.scala": """
            package io.circe

            trait Decoder[A] {
              def apply(c: HCursor): Either[String, A]
              final def decodeJson(j: Json): Either[String, A] = apply(HCursor.fromJson(j))
            }

            trait AsRoot[A] extends Decoder[A]

            object AsRoot {
              def apply[A](implicit instance: AsRoot[A]): AsRoot[A] = instance
            }

            final class SeqDecoder[A] extends Decoder[Seq[A]] {
              def apply(c: HCursor): Either[String, Seq[A]] = Right(Nil)
            }
        """,
    }
    calls = resolved("scala", files)
    m = "modules.core.src.main.scala.io.circe.Decoder"
    fan = {d for (s, d), r in calls.items() if s == f"{m}.Decoder.decodeJson" and r == "override"}
    # a subclass's own apply runs; the companion's summoner `AsRoot.apply[A]` is no instance
    # method of AsRoot, though the object lends it to the trait for `AsRoot[X]` calls
    assert f"{m}.SeqDecoder.apply" in fan
    assert f"{m}.AsRoot#2.apply" not in fan


def test_types_of_one_name_in_several_blocks_make_no_guess(resolved):
    files = {
        "modules/tests/src/test/scala/io/circe/DecoderSuite.scala": """
            package io.circe

            class DecoderSuite extends CirceMunitSuite {
              test("a") {
                trait Foo
                val d: Decoder[Foo] = null
              }
              test("b") {
                case class Foo(x: Int, y: String)
                val decoder = Decoder.const(Foo(42, "meaning"))
              }
              test("c") {
                case class Bar(x: Int)
                assert(Bar(1).x == 1)
              }
            }
        """,
    }
    calls = resolved("scala", files)
    m = "modules.tests.src.test.scala.io.circe.DecoderSuite.DecoderSuite"
    # two `Foo`s, each in its own block: which one `Foo(42, ..)` means is not known here
    assert (m, f"{m}.Foo") not in calls and (m, f"{m}.Foo#2") not in calls
    # a name declared once still resolves
    assert calls[(m, f"{m}.Bar")] == "exact"


def test_package_qualified_private_is_visible_in_its_package(resolved):
    files = {
        "core/src/main/scala/io/circe/SeqDecoder.scala": """
            package io.circe

            private[circe] abstract class SeqDecoder[A, C[_]](decodeA: Decoder[A]) {
              def apply(c: Int): Int = c
            }
            private class Hidden { def run(): Int = 1 }
            class Box { private def secret(): Int = 2 }
        """,
        "core/src/main/scala/io/circe/CollectionDecoders.scala": """
            package io.circe

            object CollectionDecoders {
              def decodeSeq[A](d: Decoder[A]): SeqDecoder[A, Seq] = new SeqDecoder[A, Seq](d) {}
              def hidden(): Int = new Hidden().run()
              def peek(x: Any): Int = x.secret()
            }
        """,
    }
    calls = resolved("scala", files)
    m = "core.src.main.scala.io.circe"
    src = f"{m}.CollectionDecoders.CollectionDecoders"
    # `private[circe]`, and a top-level `private`, are seen by the whole package
    assert calls[(f"{src}.decodeSeq", f"{m}.SeqDecoder.SeqDecoder")] == "exact"
    assert (f"{src}.hidden", f"{m}.SeqDecoder.Hidden") in calls
    # a private member is its class's only: no guess reaches it from another file
    assert (f"{src}.peek", f"{m}.SeqDecoder.Box.secret") not in calls
