from codebot.core.model import Import, Parameter

SOURCE = """
# frozen_string_literal: true

require "json"
require_relative "../concerns/auditable"

# Application models.
module App
  module Models
    # A registered user.
    #
    # Holds the profile and the login.
    class User < ApplicationRecord
      include Comparable
      include Concerns::Auditable
      extend Forwardable
      attr_accessor :first_name, :last_name

      # Builds a user from form params.
      def self.build(attrs = {}, *roles, name:, admin: false, **opts, &block)
        user = new(attrs)
        user.roles = roles.map { |r| Role.find_by(name: r) }
        user.tap(&:validate!)
      end

      def full_name
        "#{first_name} #{last_name}".strip
      end

      def save
        @repo.persist(self)
        self.touch
        @repo.count
        Audit::Log.record(:save, id)
        super
      end

      def <=>(other) = full_name <=> other.full_name

      class << self
        def table_name = "users"
      end

      # Signs sessions.
      private def secret_token
        SecureRandom.hex(16)
      end

      if ENV["LEGACY"]
        def greeting
          "Hi"
        end
      else
        def greeting
          "Hello"
        end
      end

      class Settings < Struct.new(:theme)
        def dark?
          theme == "dark"
        end
      end
    end
  end
end

class App::Models::Admin < App::Models::User
  def permissions
    [:all].each do |p|
      grant(p)
    end
  end
end

def helper; end
"""

PATH = "app/models/user.rb"
U = "app.models.user.App.Models.User"


def test_definitions_ids_kinds_lines(parse):
    p = parse("ruby", PATH, SOURCE)
    assert p.ids == [
        "app.models.user.App",
        "app.models.user.App.Models",
        U,
        f"{U}.build",
        f"{U}.full_name",
        f"{U}.save",
        f"{U}.<=>",
        f"{U}.table_name",
        f"{U}.secret_token",
        f"{U}.greeting",
        f"{U}.greeting#2",
        f"{U}.Settings",
        f"{U}.Settings.dark?",
        "app.models.user.App.Models.Admin",
        "app.models.user.App.Models.Admin.permissions",
        "app.models.user.helper",
    ]
    app, models = p["app.models.user.App"], p["app.models.user.App.Models"]
    assert (app.kind, app.start_line, app.end_line, app.docstring) == (
        "module",
        7,
        65,
        "Application models.",
    )
    assert (models.kind, models.parent, models.class_name) == ("module", app.id, "App")
    assert models.signature == "module Models"
    helper = p["app.models.user.helper"]
    assert (helper.kind, helper.class_name, helper.start_line, helper.end_line) == (
        "function",
        None,
        75,
        75,
    )


def test_classes_bases_and_mixins(parse):
    p = parse("ruby", PATH, SOURCE)
    user = p[U]
    assert (user.kind, user.start_line, user.end_line) == ("class", 12, 63)
    assert user.class_name == "Models"
    assert user.signature == "class User < ApplicationRecord"
    # A comment above the first statement of a body sits outside that body in the tree.
    assert user.docstring == "A registered user.\n\nHolds the profile and the login."
    # The superclass first, then include/extend/prepend in order.
    assert user.bases == ("ApplicationRecord", "Comparable", "Concerns::Auditable", "Forwardable")
    assert p.calls(U) == ["include", "include", "extend", "attr_accessor"]
    settings = p[f"{U}.Settings"]
    assert (settings.kind, settings.class_name, settings.parent) == ("class", "User", U)
    assert settings.bases == ("Struct.new(:theme)",)
    dark = p[f"{U}.Settings.dark?"]
    assert (dark.kind, dark.class_name, dark.start_line, dark.end_line) == (
        "method",
        "Settings",
        59,
        61,
    )
    # `class A::B` is B, owned by A.
    admin = p["app.models.user.App.Models.Admin"]
    assert (admin.kind, admin.name, admin.class_name, admin.parent) == (
        "class",
        "Admin",
        "Models",
        None,
    )
    assert admin.bases == ("App::Models::User",)


def test_methods(parse):
    p = parse("ruby", PATH, SOURCE)
    build = p[f"{U}.build"]
    assert (build.kind, build.class_name, build.parent) == ("method", "User", U)
    assert (build.start_line, build.end_line) == (19, 23)
    assert (
        build.signature == "def self.build(attrs = {}, *roles, name:, admin: false, **opts, &block)"
    )
    assert build.docstring == "Builds a user from form params."
    assert build.parameters == (
        Parameter("attrs", None, "{}"),
        Parameter("*roles"),
        Parameter("name:"),
        Parameter("admin:", None, "false"),
        Parameter("**opts"),
        Parameter("&block"),
    )
    assert build.return_type is None
    assert p[f"{U}.full_name"].parameters == ()
    assert p[f"{U}.full_name"].docstring is None
    cmp = p[f"{U}.<=>"]
    assert (cmp.name, cmp.start_line, cmp.end_line, cmp.parameters) == (
        "<=>",
        37,
        37,
        (Parameter("other"),),
    )
    assert cmp.signature == "def <=>(other)"
    # `def` inside `class << self` is a method of the class.
    table = p[f"{U}.table_name"]
    assert (table.kind, table.class_name, table.parent) == ("method", "User", U)
    # `private def x`: the call is the symbol's range, its name a decorator.
    secret = p[f"{U}.secret_token"]
    assert (secret.start_line, secret.end_line) == (44, 46)
    assert secret.decorators == ("private",)
    assert secret.docstring == "Signs sessions."
    assert secret.signature == "private def secret_token"
    assert p.calls(secret.id) == ["SecureRandom.hex"]
    # The same method defined twice (in two branches).
    assert (p[f"{U}.greeting"].start_line, p[f"{U}.greeting#2"].start_line) == (49, 53)


def test_calls(parse):
    p = parse("ruby", PATH, SOURCE)
    # Calls on a plain receiver keep it (with arguments or a block, the text from the call's start
    # to the method name: the grammar has no node for `@repo.persist` alone); on an expression,
    # the method name.
    assert p.calls(f"{U}.save") == [
        "@repo.persist",
        "self.touch",
        "@repo.count",
        "Audit::Log.record",
        "super",
    ]
    assert p.calls(f"{U}.build") == [
        "new",
        "user.roles",
        "roles.map",
        "Role.find_by",
        "user.tap",
    ]
    assert p.calls(f"{U}.full_name") == ['"".strip']  # a literal's method
    assert p.calls(f"{U}.<=>") == ["other.full_name"]
    # Blocks are not symbols: their calls belong to the method around them.
    assert p.calls("app.models.user.App.Models.Admin.permissions") == ["[].each", "grant"]
    assert [c.line for c in p[f"{U}.save"].calls] == [30, 31, 32, 33, 34]


def test_imports(parse):
    p = parse("ruby", PATH, SOURCE)
    assert p.imports == [
        Import("json", line=3),
        Import("../concerns/auditable", level=1, line=4),
    ]


def test_module_code_becomes_chunks(parse):
    p = parse("ruby", PATH, SOURCE)
    chunks = [s for s in p.result.symbols if s.kind == "chunk"]
    assert [(c.start_line, c.end_line) for c in chunks] == [
        (1, 4)
    ]  # the comment above `module App` is its docstring, not a chunk


def test_module_functions_and_singletons(parse):
    p = parse(
        "ruby",
        "lib/util/text.rb",
        """
        # frozen_string_literal: true
        # Small helpers.
        module Util
          module Text
            extend self
            module_function

            def slug(s, sep: "-") = s.downcase.gsub(/\\W+/, sep)
          end
        end

        def Util.version = "1.0"
        """,
    )
    assert p.ids == [
        "lib.util.text.Util",
        "lib.util.text.Util.Text",
        "lib.util.text.Util.Text.slug",
        "lib.util.text.Util.version",
    ]
    version = p["lib.util.text.Util.version"]
    assert (version.kind, version.class_name, version.parent) == ("method", "Util", None)
    slug = p["lib.util.text.Util.Text.slug"]
    assert (slug.kind, slug.class_name) == ("method", "Text")
    assert slug.parameters == (Parameter("s"), Parameter("sep:", None, '"-"'))
    assert p.calls(slug.id) == ["s.downcase", "(?).gsub"]  # a method of an expression
    assert p["lib.util.text.Util.Text"].bases == ()
    assert p["lib.util.text.Util"].docstring == "Small helpers."


# --- constants (issue 21) ------------------------------------------------------------------------

# sinatra's base.rb, cut down.
NAMES = """
require "rack"
VERSION = "4.0"
module Sinatra
  DEFAULT = { a: 1 }
  class Base
    CALLERS_TO_IGNORE = [
      /sinatra(\\/(base|main|show_exceptions))?\\.rb$/,
    ].freeze
    def f
      local = 1
    end
  end
  Delegator = Struct.new(:a)
  Wrapper = Class.new do
    def call; end
  end
end
config = load
"""


def test_constants(parse):
    p = parse("ruby", "lib/sinatra/base.rb", NAMES)
    m = "lib.sinatra.base"
    kinds = {s.id: s.kind for s in p.result.symbols if s.kind in ("constant", "variable")}
    assert kinds == {
        f"{m}.VERSION": "constant",
        f"{m}.Sinatra.DEFAULT": "constant",
        f"{m}.Sinatra.Base.CALLERS_TO_IGNORE": "constant",
        f"{m}.Sinatra.Delegator": "constant",
        # `Wrapper = Class.new do ... end` holds a method: the method is the symbol
    }
    ignore = p[f"{m}.Sinatra.Base.CALLERS_TO_IGNORE"]
    assert (ignore.start_line, ignore.end_line) == (6, 8)
    assert ignore.signature == "CALLERS_TO_IGNORE = ["  # a value's first line
    assert p.calls(ignore.id) == ["[].freeze"]  # a literal's method


def test_a_constant_calls_what_its_value_calls(resolved):
    """A class's constant is resolved inside its class (it runs when the class body does), and
    is never a callee itself."""
    edges = resolved(
        "ruby",
        {
            "lib/sinatra/base.rb": """
            module Sinatra
              class Request
                HEADER_PARAM = build_param(:accept)
                def self.build_param(name)
                  name
                end
                def accept
                  HEADER_PARAM
                end
              end
            end
            """,
        },
    )
    m = "lib.sinatra.base.Sinatra.Request"
    # From the constant, as the class body's resolution gives it (the class called it before).
    assert set(edges) == {(f"{m}.HEADER_PARAM", f"{m}.build_param")}


# --- who receives a call (issue 21): self, the block's self, typed variables -------------------

SINATRA_BASE = """
module Sinatra
  module Helpers
    def body(value = nil)
      @body = value
    end
  end

  class Request < Rack::Request
    def forwarded?
      true
    end
  end

  class Base
    include Helpers

    def call(env)
      status(200)
    end

    def status(value = nil)
      @status = value
    end

    class << self
      def get(path, opts = {}, &block)
        route("GET", path, opts, &block)
      end

      def route(verb, path, options = {}, &block)
        [verb, path]
      end
    end
  end

  def self.new(base = Base, &block)
    base = Class.new(base)
    base.class_eval(&block) if block_given?
    base
  end
end
"""

TEST_HELPER = """
class Minitest::Test
  include Rack::Test::Methods

  def mock_app(base = Sinatra::Base, &block)
    @app = Sinatra.new(base, &block)
  end

  def assert_body(value)
    assert_equal value, last_response.body
  end
end
"""


def test_calls_on_self_and_in_dsl_blocks(resolved):
    """A call without receiver is on self: through the class, the library class it reopens
    and the modules included. A block given to a method of ours taking ``&block`` and a class
    default (sinatra's ``mock_app``) runs in that class, its route blocks in its instances; a
    test's ``it`` block keeps the test's self; rack-test's ``get`` is no edge."""
    edges = resolved(
        "ruby",
        {
            "lib/sinatra/base.rb": SINATRA_BASE,
            "test/test_helper.rb": TEST_HELPER,
            "test/routing_test.rb": """
            class RoutingTest < Minitest::Test
              it "routes" do
                mock_app { get("/") { body "hi" } }
                assert_body "hi"
              end

              def test_request
                get "/"
              end
            end
            """,
        },
    )
    t, s = "test.routing_test.RoutingTest", "lib.sinatra.base.Sinatra"
    assert {dst: r for (src, dst), r in edges.items() if src == t} == {
        "test.test_helper.Minitest.Test.mock_app": "exact",
        f"{s}.Base.get": "exact",  # in mock_app's block: the app class
        f"{s}.Helpers.body": "exact",  # in a route's block: the app
        "test.test_helper.Minitest.Test.assert_body": "exact",  # in `it`: the test
    }
    # `get "/"` in a test method: rack-test's (Minitest::Test includes Rack::Test::Methods)
    assert not [e for e in edges if e[0] == f"{t}.test_request"]
    # Inside the library: `status(200)` is Base#status; `route(...)` in `class << self`
    assert edges[(f"{s}.Base.call", f"{s}.Base.status")] == "exact"
    assert edges[(f"{s}.Base.get", f"{s}.Base.route")] == "exact"
    # `Class.new(base)`, `base.class_eval`: no method of ours
    assert not [e for e in edges if e[0] == f"{s}.new"]


def test_typed_variables_and_library_values(resolved):
    """``x = Foo.new`` and ``@x = Foo.new`` (anywhere in the class) type ``x.m``; a library
    class's instance (``StringIO.new``) binds nothing by name; neither does a method of an
    expression (``make(1).rewind``) or a variable whose name does not name the class
    (``response.status``, where ``request.forwarded?`` does)."""
    edges = resolved(
        "ruby",
        {
            "lib/sinatra/base.rb": SINATRA_BASE,
            "lib/tape.rb": """
            class Tape
              def rewind
                0
              end
            end
            """,
            "lib/runner.rb": """
            class Runner
              def initialize
                @app = Sinatra::Base.new
                @io = StringIO.new
                @cache = Hash.new
              end

              def run(env, response, request)
                req = Sinatra::Request.new(env)
                req.forwarded?
                @app.call(env)
                @io.rewind
                error = StringIO.new
                error.rewind
                make(1).rewind
                response.status
                request.forwarded?
              end
            end
            """,
        },
    )
    s = "lib.sinatra.base.Sinatra"
    assert {dst: r for (src, dst), r in edges.items() if src == "lib.runner.Runner.run"} == {
        f"{s}.Request": "exact",  # the constructor: the class (no initialize of its own)
        f"{s}.Request.forwarded?": "exact",  # req.forwarded? (and request.forwarded?, by name)
        f"{s}.Base.call": "exact",
    }
    # `Sinatra::Base.new` is the class's constructor; `StringIO.new`, `Hash.new` are no calls
    # of Runner#initialize (the wrong edges of before)
    assert {dst for (src, dst) in edges if src == "lib.runner.Runner.initialize"} == {f"{s}.Base"}


def test_call_texts_say_who_receives(parse):
    p = parse(
        "ruby",
        "test/t.rb",
        """
        class T < Minitest::Test
          it "x" do
            mock_app { get("/") { body "x" } }
            list.each { |x| check(x) }
            make(1).run
            "a b".split
          end
        end
        """,
    )
    assert p.calls("test.t.T") == [
        "it",
        "(self? it).mock_app",
        "(self? it mock_app).get",
        "(self? it mock_app get).body",
        "list.each",
        "(self? it).check",
        "(self? it).make",
        "(?).run",
        '"".split',
    ]
