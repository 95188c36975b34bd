from codebot.core.model import Import, Parameter

ESM = """
import EventEmitter, { once as onceEvent } from 'events';
import * as fs from 'node:fs';
import './polyfills.js';
import defaultsDeep from '../../lib/defaults.js';

export { formatUser, parseUser as parse } from './format.js';
export * from './types.js';
export * as errors from '../errors/index.js';

const MAX_RETRIES = 3;

/**
 * Loads and caches users.
 *
 * @extends EventEmitter
 */
export class UserService extends EventEmitter {
  static #instances = 0;

  /** Per-process cache. */
  static Cache = class {
    get(key) {
      return this.map.get(key);
    }
  };

  constructor(repo, { ttl = 60 } = {}) {
    super();
    this.repo = repo;
    UserService.#instances++;
  }

  /**
   * Find a user by id.
   * @param {string} id
   * @returns {Promise<User>}
   */
  async findById(id, retries = MAX_RETRIES) {
    const user = await this.repo.find(id);
    return user ?? this.emit('miss', id);
  }

  get size() {
    return this.repo.count();
  }

  set size(value) {
    throw new TypeError(`read-only: ${value}`);
  }

  static create(...args) {
    return new UserService(...args);
  }

  *ids() {
    yield* this.repo.keys();
  }

  // Bound handler for the 'change' event.
  onChange = (event) => {
    this.cache.delete(event.id);
  };
}

// Fetch one user from the API.
export const fetchUser = async (id) => {
  const res = await fetch(`/api/users/${id}`);
  return res.json();
};

const double = x => x * 2;

export const handlers = {
  onSave(doc) {
    return fs.promises.writeFile(doc.path, doc.body);
  },
  onDelete: async (id) => remove(id),
};

export default function () {
  return new UserService(null);
}

function makeWorker() {
  class Worker {
    run() {
      return makeWorker();
    }
  }
  return new Worker().run();
}
"""

CJS = """
'use strict';

const path = require('path');
const { promisify, inspect: show } = require('util');
const debug = require('debug')('app:server');
const { Router } = require('./router'), Pool = require('../db/pool').Pool;
require('dotenv/config');

/**
 * A minimal HTTP server.
 * @constructor
 */
function Server(options) {
  this.options = options || {};
  this.router = new Router();
}

/** Start listening. */
Server.prototype.listen = function listen(port, host = '0.0.0.0') {
  debug('listening on %d', port);
  return this.router.bind(port, host);
};

Server.create = function (opts) {
  return new Server(opts);
};

exports.readConfig = async function (file) {
  const read = promisify(require('fs').readFile);
  return JSON.parse(await read(path.resolve(file)));
};

module.exports.version = () => '1.0.0';
"""

M = "src.services.userService"


def test_esm_definitions_ids_kinds_lines(parse):
    p = parse("javascript", "src/services/userService.js", ESM)
    assert p.result.issues == []
    assert p.ids == [
        f"{M}.MAX_RETRIES",
        f"{M}.UserService",
        f"{M}.UserService.Cache",
        f"{M}.UserService.Cache.get",
        f"{M}.UserService.constructor",
        f"{M}.UserService.findById",
        f"{M}.UserService.size",
        f"{M}.UserService.size#2",
        f"{M}.UserService.create",
        f"{M}.UserService.ids",
        f"{M}.UserService.onChange",
        f"{M}.fetchUser",
        f"{M}.double",
        f"{M}.handlers.onSave",
        f"{M}.handlers.onDelete",
        f"{M}.default",
        f"{M}.makeWorker",
        f"{M}.makeWorker.Worker",
        f"{M}.makeWorker.Worker.run",
    ]
    shape = {s.id: (s.kind, s.start_line, s.end_line, s.class_name) for s in p.result.symbols}
    assert shape[f"{M}.UserService"] == ("class", 17, 63, None)
    # A class held by a static field is a nested class; its methods are its own.
    assert shape[f"{M}.UserService.Cache"] == ("class", 21, 25, "UserService")
    assert shape[f"{M}.UserService.Cache.get"] == ("method", 22, 24, "Cache")
    assert shape[f"{M}.UserService.findById"] == ("method", 38, 41, "UserService")
    # getter and setter of one property: the second gets #2
    assert shape[f"{M}.UserService.size"] == ("method", 43, 45, "UserService")
    assert shape[f"{M}.UserService.size#2"] == ("method", 47, 49, "UserService")
    assert shape[f"{M}.UserService.create"] == ("method", 51, 53, "UserService")
    assert shape[f"{M}.UserService.onChange"] == ("method", 60, 62, "UserService")
    assert shape[f"{M}.fetchUser"] == ("function", 66, 69, None)
    assert shape[f"{M}.double"] == ("function", 71, 71, None)
    # object-literal methods are functions, named under the object
    assert shape[f"{M}.handlers.onSave"] == ("function", 74, 76, None)
    assert shape[f"{M}.handlers.onDelete"] == ("function", 77, 77, None)
    assert shape[f"{M}.default"] == ("function", 80, 82, None)
    assert shape[f"{M}.makeWorker.Worker"] == ("class", 85, 89, None)
    assert shape[f"{M}.makeWorker.Worker.run"] == ("method", 86, 88, "Worker")
    assert p[f"{M}.makeWorker.Worker.run"].parent == f"{M}.makeWorker.Worker"


def test_esm_signatures_parameters_docs(parse):
    p = parse("javascript", "src/services/userService.js", ESM)
    cls = p[f"{M}.UserService"]
    assert cls.signature == "export class UserService extends EventEmitter"
    assert cls.bases == ("EventEmitter",)
    assert cls.docstring == "Loads and caches users.\n\n@extends EventEmitter"
    assert p[f"{M}.UserService.Cache"].docstring == "Per-process cache."

    find = p[f"{M}.UserService.findById"]
    assert find.signature == "async findById(id, retries = MAX_RETRIES)"
    assert find.parameters == (Parameter("id"), Parameter("retries", None, "MAX_RETRIES"))
    assert find.docstring == "Find a user by id.\n@param {string} id\n@returns {Promise<User>}"
    assert find.return_type is None

    ctor = p[f"{M}.UserService.constructor"]
    assert ctor.parameters == (Parameter("repo"), Parameter("{ ttl = 60 }", None, "{}"))
    assert p[f"{M}.UserService.create"].signature == "static create(...args)"
    assert p[f"{M}.UserService.create"].parameters == (Parameter("...args"),)
    assert p[f"{M}.UserService.ids"].signature == "*ids()"
    assert p[f"{M}.UserService.size#2"].signature == "set size(value)"

    handler = p[f"{M}.UserService.onChange"]
    assert handler.signature == "onChange = (event) =>"
    assert handler.parameters == (Parameter("event"),)
    assert handler.docstring == "Bound handler for the 'change' event."

    fetch_user = p[f"{M}.fetchUser"]
    assert fetch_user.signature == "export const fetchUser = async (id) =>"
    assert fetch_user.parameters == (Parameter("id"),)
    assert fetch_user.docstring == "Fetch one user from the API."
    assert p[f"{M}.double"].parameters == (Parameter("x"),)
    assert p[f"{M}.double"].signature == "const double = x =>"
    assert p[f"{M}.handlers.onDelete"].signature == "onDelete: async (id) =>"
    assert p[f"{M}.default"].signature == "export default function ()"


def test_esm_calls(parse):
    p = parse("javascript", "src/services/userService.js", ESM)
    assert p.calls(f"{M}.UserService.constructor") == ["super"]
    assert p.calls(f"{M}.UserService.findById") == ["this.repo.find", "this.emit"]
    assert p.calls(f"{M}.UserService.size#2") == ["TypeError"]
    assert p.calls(f"{M}.UserService.create") == ["UserService"]
    assert p.calls(f"{M}.UserService.onChange") == ["this.cache.delete"]
    assert p.calls(f"{M}.fetchUser") == ["fetch", "res.json"]
    assert p.calls(f"{M}.handlers.onSave") == ["fs.promises.writeFile"]
    assert p.calls(f"{M}.makeWorker") == ["new Worker().run", "Worker"]
    assert p.calls(f"{M}.makeWorker.Worker.run") == ["makeWorker"]
    call = p[f"{M}.fetchUser"].calls[0]
    assert (call.name, call.line) == ("fetch", 67)


def test_esm_imports_and_reexports(parse):
    p = parse("javascript", "src/services/userService.js", ESM)
    assert p.imports == [
        Import("events", "default", "EventEmitter", 0, 1),
        Import("events", "once", "onceEvent", 0, 1),
        Import("node:fs", None, "fs", 0, 2),
        Import("./polyfills.js", None, None, 1, 3),
        Import("../../lib/defaults.js", "default", "defaultsDeep", 3, 4),
        Import("./format.js", "formatUser", None, 1, 6),
        Import("./format.js", "parseUser", "parse", 1, 6),
        Import("./types.js", "*", None, 1, 7),
        Import("../errors/index.js", None, "errors", 2, 8),
    ]


def test_commonjs_definitions_and_requires(parse):
    p = parse("javascript", "lib/server.js", CJS)
    assert p.result.issues == []
    assert p.ids == [
        "lib.server.Server",
        "lib.server.Server.listen",
        "lib.server.Server.create",
        "lib.server.readConfig",
        "lib.server.version",
    ]
    server = p["lib.server.Server"]
    assert (server.kind, server.start_line, server.end_line) == ("function", 13, 16)
    assert server.docstring == "A minimal HTTP server.\n@constructor"
    # `Foo.prototype.m = function` and `Foo.m = function` are methods of Foo
    listen = p["lib.server.Server.listen"]
    assert (listen.kind, listen.class_name, listen.start_line, listen.end_line) == (
        "method",
        "Server",
        19,
        22,
    )
    assert listen.docstring == "Start listening."
    assert listen.parameters == (Parameter("port"), Parameter("host", None, "'0.0.0.0'"))
    assert p.calls("lib.server.Server.listen") == ["debug", "this.router.bind"]
    assert p["lib.server.Server.create"].class_name == "Server"
    assert p.calls("lib.server.Server.create") == ["Server"]
    # exports are not owners
    read = p["lib.server.readConfig"]
    assert (read.kind, read.class_name) == ("function", None)
    assert read.signature == "exports.readConfig = async function (file)"
    assert p.calls("lib.server.readConfig") == [
        "promisify",
        "require",
        "JSON.parse",
        "read",
        "path.resolve",
    ]
    assert p["lib.server.version"].signature == "module.exports.version = () =>"
    assert p.imports == [
        Import("path", None, "path", 0, 3),
        Import("util", "promisify", None, 0, 4),
        Import("util", "inspect", "show", 0, 4),
        Import("debug", None, "debug", 0, 5),
        Import("./router", "Router", None, 1, 6),
        Import("../db/pool", "Pool", "Pool", 2, 6),
        Import("dotenv/config", None, None, 0, 7),
    ]


JSX = """
import { observer } from 'mobx-react';
import Modal from './Modal';

/** The settings dialog. */
@observer
export class Settings extends React.Component {
  @action.bound
  save() {
    this.props.store.save();
  }

  render() {
    return (
      <Modal.Dialog onClose={this.save}>
        <Toggle label="Dark mode" />
        <span>{t('settings.title')}</span>
      </Modal.Dialog>
    );
  }
}

export default function App({ store }) {
  return <Settings store={store} />;
}
"""


def test_jsx_components_and_decorators(parse):
    p = parse("javascript", "src/Settings.jsx", JSX)
    assert p.result.issues == []
    assert p.ids == [
        "src.Settings.Settings",
        "src.Settings.Settings.save",
        "src.Settings.Settings.render",
        "src.Settings.App",
    ]
    settings = p["src.Settings.Settings"]
    assert (settings.start_line, settings.end_line) == (5, 20)
    assert settings.decorators == ("observer",)
    assert settings.docstring == "The settings dialog."
    assert settings.bases == ("React.Component",)
    save = p["src.Settings.Settings.save"]
    # in JavaScript a member's decorators are part of it
    assert (save.start_line, save.end_line, save.decorators) == (7, 10, ("action.bound",))
    # capitalised JSX elements are calls of components; <span> is not
    assert p.calls("src.Settings.Settings.render") == ["Modal.Dialog", "Toggle", "t"]
    assert p.calls("src.Settings.App") == ["Settings"]
    assert p["src.Settings.App"].parameters == (Parameter("{ store }"),)
    assert p.imports == [
        Import("mobx-react", "observer", None, 0, 1),
        Import("./Modal", "default", "Modal", 1, 2),
    ]


# --- module-level names (issue 21) ---------------------------------------------------------------

# express's lib/utils.js and lib/router, cut down.
NAMES = """
var Buffer = require('safe-buffer').Buffer
var contentType = require('content-type');
var debug = require('debug')('express:router');
const METHODS = ['get', 'post'];
let counter = 0, other = 1;
export const etag = createETagGenerator({ weak: false });
const DEFAULTS = { caseSensitive: false, strict: false };
const proto = { handle() { return 1; } };
const compose = (a, b) => a(b);
function createETagGenerator(options) {
  const local = options;
  return local;
}
"""


def test_module_names(parse):
    p = parse("javascript", "lib/utils.js", NAMES)
    kinds = {s.id: s.kind for s in p.result.symbols if s.kind != "chunk"}
    assert kinds == {
        "lib.utils.METHODS": "constant",
        "lib.utils.counter": "variable",
        "lib.utils.other": "variable",
        "lib.utils.etag": "variable",
        "lib.utils.DEFAULTS": "constant",
        "lib.utils.proto.handle": "function",  # an object holding methods stays their namespace
        "lib.utils.compose": "function",  # a function by assignment is a function, once
        "lib.utils.createETagGenerator": "function",
    }
    assert (
        p["lib.utils.etag"].signature == "export const etag = createETagGenerator({ weak: false })"
    )
    assert p.calls("lib.utils.etag") == ["createETagGenerator"]
    # `require` bindings are imports, not variables; no chunk is a stray `,` or `let`.
    assert [i.module for i in p.imports] == ["safe-buffer", "content-type", "debug"]
    chunks = [s.signature for s in p.result.symbols if s.kind == "chunk"]
    assert len(chunks) == 2 and chunks[0].startswith("var Buffer = require")
    assert chunks[1] == "const proto = {"  # its `};` is no chunk
