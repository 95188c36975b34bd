from codebot.core.model import Import, Parameter

SOURCE = """
<?php

declare(strict_types=1);

namespace App\\Http\\Controllers;

use App\\Models\\User;
use App\\Services\\{Mailer, Logger as Log};
use Psr\\Log\\LoggerInterface as PsrLogger;
use function App\\Support\\format_name;
use const App\\Support\\MAX_USERS;

require_once __DIR__ . '/../bootstrap.php';

/**
 * Serves the user pages.
 *
 * @package App\\Http
 */
#[Route('/users'), Middleware('auth')]
final class UserController extends Controller implements HasMiddleware, \\JsonSerializable
{
    use Loggable, Cacheable;

    private const PAGE_SIZE = 20;

    public function __construct(
        private readonly UserRepository $repo,
        protected ?Mailer $mailer = null,
        string ...$roles,
    ) {
        parent::__construct();
    }

    /** Shows one user. */
    #[Get('/{id}')]
    public function show(int $id, Request &$request, string $format = 'json'): ?User
    {
        $user = $this->repo->find($id);
        $this->repo->save($user);
        $admin = User::findAdmin();
        $page = new Page();
        $post = new \\App\\Models\\Post;
        return format_name($user);
    }

    public function jsonSerialize(): mixed
    {
        return [];
    }
}

abstract class Controller
{
    abstract protected function middleware(): array;

    public static function create(): static
    {
        return new static();
    }
}

interface HasMiddleware extends Countable, Traversable
{
    public function middleware(): array;
}

trait Loggable
{
    public function log(string $message, array $context = []): void
    {
        $this->logger?->info($message, $context);
    }
}

enum Status: string implements HasLabel
{
    case Active = 'active';
    case Banned = 'banned';

    public function label(): string
    {
        return ucfirst($this->value);
    }
}

if (!function_exists('App\\Http\\Controllers\\helper')) {
    function helper(array $items = []): int
    {
        return count($items);
    }
} else {
    function helper(): int
    {
        return 0;
    }
}
"""

PATH = "app/Http/Controllers/UserController.php"
NS = "app.Http.Controllers.UserController.App.Http.Controllers"
C = f"{NS}.UserController"


def test_definitions_ids_kinds_lines(parse):
    p = parse("php", PATH, SOURCE)
    assert p.ids == [
        C,
        f"{C}.PAGE_SIZE",
        f"{C}.__construct",
        f"{C}.show",
        f"{C}.jsonSerialize",
        f"{NS}.Controller",
        f"{NS}.Controller.middleware",
        f"{NS}.Controller.create",
        f"{NS}.HasMiddleware",
        f"{NS}.HasMiddleware.middleware",
        f"{NS}.Loggable",
        f"{NS}.Loggable.log",
        f"{NS}.Status",
        f"{NS}.Status.label",
        f"{NS}.helper",
        f"{NS}.helper#2",
    ]
    kinds = {s.id: s.kind for s in p.result.symbols}
    assert [kinds[f"{NS}.{n}"] for n in ("Controller", "HasMiddleware", "Loggable", "Status")] == [
        "class",
        "interface",
        "trait",
        "enum",
    ]
    helper = p[f"{NS}.helper"]
    assert (helper.kind, helper.class_name, helper.start_line, helper.end_line) == (
        "function",
        None,
        88,
        91,
    )
    assert helper.parameters == (Parameter("$items", "array", "[]"),)
    assert helper.return_type == "int"
    assert p.calls(helper.id) == ["count"]
    assert p[f"{NS}.helper#2"].start_line == 93


def test_class_doc_attributes_bases(parse):
    p = parse("php", PATH, SOURCE)
    c = p[C]
    assert (c.kind, c.start_line, c.end_line, c.class_name, c.parent) == (
        "class",
        20,
        51,
        None,
        None,
    )
    assert c.docstring == "Serves the user pages.\n\n@package App\\Http"
    assert c.decorators == ("Route('/users')", "Middleware('auth')")
    # extends, implements, then the traits the body uses.
    assert c.bases == ("Controller", "HasMiddleware", "\\JsonSerializable", "Loggable", "Cacheable")
    assert c.signature == (
        "#[Route('/users'), Middleware('auth')] final class UserController extends Controller "
        "implements HasMiddleware, \\JsonSerializable"
    )
    assert p[f"{NS}.HasMiddleware"].bases == ("Countable", "Traversable")
    assert p[f"{NS}.Status"].bases == ("HasLabel",)
    assert p[f"{NS}.Loggable"].bases == ()


def test_methods(parse):
    p = parse("php", PATH, SOURCE)
    ctor = p[f"{C}.__construct"]
    assert (ctor.kind, ctor.class_name, ctor.parent) == ("method", "UserController", C)
    assert (ctor.start_line, ctor.end_line) == (27, 33)
    # Promoted properties are parameters; a variadic keeps its `...`.
    assert ctor.parameters == (
        Parameter("$repo", "UserRepository"),
        Parameter("$mailer", "?Mailer", "null"),
        Parameter("...$roles", "string"),
    )
    assert ctor.return_type is None
    assert p.calls(ctor.id) == ["parent::__construct"]
    show = p[f"{C}.show"]
    assert (show.start_line, show.end_line) == (36, 45)
    assert show.docstring == "Shows one user."
    assert show.decorators == ("Get('/{id}')",)
    assert show.parameters == (
        Parameter("$id", "int"),
        Parameter("&$request", "Request"),
        Parameter("$format", "string", "'json'"),
    )
    assert show.return_type == "?User"
    assert show.signature == (
        "#[Get('/{id}')] public function show(int $id, Request &$request, string $format = 'json'): ?User"
    )
    abstract = p[f"{NS}.Controller.middleware"]
    assert (abstract.kind, abstract.class_name, abstract.start_line, abstract.end_line) == (
        "method",
        "Controller",
        55,
        55,
    )
    assert abstract.signature == "abstract protected function middleware(): array"
    assert abstract.return_type == "array"
    iface = p[f"{NS}.HasMiddleware.middleware"]
    assert (iface.kind, iface.class_name) == ("method", "HasMiddleware")
    log = p[f"{NS}.Loggable.log"]
    assert (log.class_name, log.parameters) == (
        "Loggable",
        (Parameter("$message", "string"), Parameter("$context", "array", "[]")),
    )
    label = p[f"{NS}.Status.label"]
    assert (label.kind, label.class_name, label.return_type) == ("method", "Status", "string")


def test_calls(parse):
    p = parse("php", PATH, SOURCE)
    # Method calls keep a plain receiver (the engine records from the call's start to the method
    # name: the grammar has no node for `$this->repo->find` alone). `new X` is a call to X.
    assert p.calls(f"{C}.show") == [
        "$this->repo->find",
        "$this->repo->save",
        "User::findAdmin",
        "Page",
        "\\App\\Models\\Post",
        "format_name",
    ]
    assert [c.line for c in p[f"{C}.show"].calls] == [39, 40, 41, 42, 43, 44]
    assert p.calls(f"{NS}.Controller.create") == ["static"]
    assert p.calls(f"{NS}.Loggable.log") == ["info"]
    assert p.calls(f"{NS}.Status.label") == ["ucfirst"]


def test_imports(parse):
    p = parse("php", PATH, SOURCE)
    assert p.imports == [
        Import("App\\Models", "User", line=7),
        Import("App\\Services", "Mailer", line=8),
        Import("App\\Services", "Logger", "Log", line=8),
        Import("Psr\\Log", "LoggerInterface", "PsrLogger", line=9),
        Import("App\\Support", "format_name", line=10),
        Import("App\\Support", "MAX_USERS", line=11),
        Import("__DIR__ . '/../bootstrap.php'", line=13),
    ]


def test_block_namespaces_and_globals(parse):
    p = parse(
        "php",
        "src/legacy.php",
        """
        <?php
        namespace Acme\\Billing {
            use Acme\\Core\\Money;

            class Invoice
            {
                public function total(): Money { return Money::zero(); }
            }
        }

        namespace {
            require_once('vendor/autoload.php');

            function main(): void
            {
                $invoice = new Acme\\Billing\\Invoice();
                echo $invoice->total();
            }
        }
        """,
    )
    assert p.ids == [
        "src.legacy.Acme.Billing.Invoice",
        "src.legacy.Acme.Billing.Invoice.total",
        "src.legacy.main",
    ]
    invoice = p["src.legacy.Acme.Billing.Invoice"]
    assert (invoice.start_line, invoice.end_line, invoice.parent) == (5, 8, None)
    assert p.calls("src.legacy.Acme.Billing.Invoice.total") == ["Money::zero"]
    assert p.calls("src.legacy.main") == ["Acme\\Billing\\Invoice", "$invoice->total"]
    assert p.imports == [
        Import("Acme\\Core", "Money", line=3),
        Import("vendor/autoload.php", line=12),
    ]


def test_single_name_use_and_plain_file(parse):
    p = parse(
        "php", "index.php", "<?php\nuse Closure;\n\nfunction run(Closure $f) { return $f(); }\n"
    )
    assert p.imports == [Import("", "Closure", line=2)]
    assert p.ids == ["index.run"]
    assert p.calls("index.run") == ["$f"]


# --- constants (issue 21) ------------------------------------------------------------------------

# monolog's Logger.php, cut down.
NAMES = """<?php
namespace Monolog;
const VERSION = "3.0";
define('MONOLOG_DEBUG', true);
class Logger
{
    public const DEBUG = 100;
    const API = 3;
    private static $instances = [];
    public function f() { define('X', 1); }
}
"""


def test_constants(parse):
    p = parse("php", "src/Monolog/Logger.php", NAMES)
    m = "src.Monolog.Logger.Monolog"
    kinds = {s.id: s.kind for s in p.result.symbols if s.kind in ("constant", "variable")}
    assert kinds == {
        f"{m}.VERSION": "constant",
        f"{m}.MONOLOG_DEBUG": "constant",
        f"{m}.Logger.DEBUG": "constant",
        f"{m}.Logger.API": "constant",
    }
    assert p[f"{m}.Logger.DEBUG"].class_name == "Logger"


def test_constants_resolve_and_are_no_callees(resolved):
    edges = resolved(
        "php",
        {
            "src/Logger.php": """<?php
            namespace Monolog;
            const VERSION = "3";
            class Logger
            {
                public const DEBUG = 100;
                public function level() { return self::DEBUG; }
                public function v() { return VERSION; }
            }
            """,
        },
    )
    assert edges == {}


def test_new_types_a_local_and_global_names_stay_global(resolved):
    """``$handler = new BufferHandler(...)`` types ``$handler->handle()`` (to the method
    inherited); ``new \\DateTimeImmutable`` is PHP's class even where the namespace defines its
    own ``DateTimeImmutable``; a guess from library code never lands in a test's class."""
    edges = resolved(
        "php",
        {
            "src/Monolog/Handler/AbstractHandler.php": """<?php
            namespace Monolog\\Handler;
            abstract class AbstractHandler
            {
                public function handle(array $record): bool { return true; }
                public function close(): void {}
            }
            class BufferHandler extends AbstractHandler
            {
                public function flush(): void {}
            }
            class NullHandler extends AbstractHandler
            {
                public function handle(array $record): bool { return false; }
            }
            """,
            "src/Monolog/DateTimeImmutable.php": """<?php
            namespace Monolog;
            class DateTimeImmutable extends \\DateTimeImmutable
            {
                public function __construct(bool $micro) {}
            }
            """,
            "src/Monolog/Handler/RedisHandler.php": """<?php
            namespace Monolog\\Handler;
            class RedisHandler
            {
                public function write(array $record): void
                {
                    $this->redisClient->rpush($record);
                }
            }
            """,
            "tests/Monolog/Handler/BufferHandlerTest.php": """<?php
            namespace Monolog\\Handler;
            class BufferHandlerTest
            {
                public function testHandle()
                {
                    $handler = new BufferHandler();
                    $handler->handle([]);
                    $handler->flush();
                    $at = new \\DateTimeImmutable('@0');
                    $mock = new class { public function rpush($x) {} };
                }
            }
            """,
        },
    )
    h = "src.Monolog.Handler.AbstractHandler.Monolog.Handler"
    t = "tests.Monolog.Handler.BufferHandlerTest.Monolog.Handler.BufferHandlerTest.testHandle"
    assert {dst: r for (src, dst), r in edges.items() if src == t} == {
        f"{h}.BufferHandler": "exact",  # no constructor: the class
        f"{h}.AbstractHandler.handle": "exact",  # not NullHandler's
        f"{h}.BufferHandler.flush": "exact",
    }
    assert not [e for e in edges if e[0].endswith("RedisHandler.write")]


def test_a_trait_method_comes_before_the_parents_and_an_interfaces(resolved):
    """A trait's methods are copied into the class that uses it: they override the parent's,
    and an interface's bodiless declaration is the target only where no class or trait defines
    the method (monolog: ``$handler->setFormatter(..)`` on a ``BrowserConsoleHandler`` runs
    ``FormattableHandlerTrait::setFormatter``). ``parent::m()`` is the parent class's ``m``,
    never one of the caller's own traits."""
    edges = resolved(
        "php",
        {
            "src/Monolog/Handler/FormattableHandlerInterface.php": """<?php
            namespace Monolog\\Handler;
            interface FormattableHandlerInterface
            {
                public function setFormatter($formatter): HandlerInterface;
                public function getFormatter();
            }
            """,
            "src/Monolog/Handler/FormattableHandlerTrait.php": """<?php
            namespace Monolog\\Handler;
            trait FormattableHandlerTrait
            {
                public function setFormatter($formatter): HandlerInterface { return $this; }
                public function close(): void {}
                protected function write(array $record): void {}
            }
            """,
            "src/Monolog/Handler/AbstractProcessingHandler.php": """<?php
            namespace Monolog\\Handler;
            abstract class AbstractHandler
            {
                public function close(): void {}
                protected function write(array $record): void {}
            }
            abstract class AbstractProcessingHandler extends AbstractHandler implements FormattableHandlerInterface
            {
                use FormattableHandlerTrait;

                protected function write(array $record): void
                {
                    parent::write($record);
                }
            }
            class BrowserConsoleHandler extends AbstractProcessingHandler
            {
                public function flush(): void
                {
                    $this->close();
                }
            }
            """,
            "src/Monolog/JsonSerializableDateTimeImmutable.php": """<?php
            namespace Monolog;
            class DateTimeImmutable extends JsonSerializableDateTimeImmutable
            {
            }
            class JsonSerializableDateTimeImmutable extends \\DateTimeImmutable
            {
                public function __construct(bool $micro)
                {
                    parent::__construct('now');
                }
            }
            """,
            "src/Monolog/Handler/Setup.php": """<?php
            namespace Monolog\\Handler;
            class Setup
            {
                public function run($formatter)
                {
                    $handler = new BrowserConsoleHandler();
                    $handler->setFormatter($formatter);
                }
            }
            """,
        },
    )
    h = "src.Monolog.Handler"
    trait = f"{h}.FormattableHandlerTrait.Monolog.Handler.FormattableHandlerTrait"
    base = f"{h}.AbstractProcessingHandler.Monolog.Handler"
    run = f"{h}.Setup.Monolog.Handler.Setup.run"
    assert {dst: r for (src, dst), r in edges.items() if src == run} == {
        f"{base}.BrowserConsoleHandler": "exact",
        f"{trait}.setFormatter": "exact",  # not FormattableHandlerInterface's declaration
    }
    flush = f"{base}.BrowserConsoleHandler.flush"
    assert {dst for (src, dst) in edges if src == flush} == {f"{trait}.close"}
    write = f"{base}.AbstractProcessingHandler.write"
    assert {dst for (src, dst) in edges if src == write} == {f"{base}.AbstractHandler.write"}
    # `extends \\DateTimeImmutable` is PHP's class, not the namespace's own `DateTimeImmutable`
    # (a subclass): `parent::__construct` is a library's, not this constructor again
    assert not [e for e in edges if e[0].endswith("JsonSerializableDateTimeImmutable.__construct")]
