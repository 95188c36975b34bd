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
    assert p.calls(f"{U}.full_name") == ["strip"]
    assert p.calls(f"{U}.<=>") == ["other.full_name"]
    # Blocks are not symbols: their calls belong to the method around them.
    assert p.calls("app.models.user.App.Models.Admin.permissions") == ["each", "grant"]
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
    assert p.calls(slug.id) == ["s.downcase", "gsub"]
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
    assert p.calls(ignore.id) == ["freeze"]


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
