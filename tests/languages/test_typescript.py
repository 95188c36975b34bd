from codebot.core.model import Import, Parameter

SERVICE = """
import { Injectable, Inject } from '@angular/core';
import type { Observable } from 'rxjs';
import * as ops from 'rxjs/operators';
import http = require('http');
import Logger, { LogLevel as Level } from '../logging/logger';
export { UserDto } from './dto';
export * from './errors';

/** Identifies a user. */
export type UserId = string | number;

/**
 * Something that stores entities.
 */
export interface Repository<T> extends Disposable, Iterable<T> {
  /** Find one entity. */
  find(id: UserId): Promise<T | undefined>;
  save(entity: T, options?: SaveOptions): Promise<void>;
  readonly size: number;
}

export enum Role {
  Admin = 'admin',
  User = 'user',
}

export abstract class BaseService<T> {
  protected abstract readonly name: string;

  abstract load(id: UserId): Promise<T>;

  protected log(message: string, level: Level = Level.Info): void {
    Logger.write(level, `${this.name}: ${message}`);
  }
}

/**
 * Users, cached.
 */
@Injectable({ providedIn: 'root' })
export class UserService extends BaseService<User> implements OnInit, Repository<User> {
  private cache = new Map<UserId, User>();

  constructor(
    @Inject(API_URL) private readonly baseUrl: string,
    private http?: HttpClient,
  ) {
    super();
  }

  /** Look a user up, by id or by name. */
  find(id: UserId): Promise<User | undefined>;
  find(name: string, exact: boolean): Promise<User | undefined>;
  /** The implementation. */
  @Memoize()
  @Trace('users')
  async find(key: UserId, exact = false): Promise<User | undefined> {
    const hit = this.cache.get(key);
    return hit ?? (await this.load(key));
  }

  async load(id: UserId): Promise<User> {
    const user = await this.http!.get<User>(`${this.baseUrl}/users/${id}`).toPromise();
    this.cache.set(id, user);
    return user;
  }

  static isAdmin(user: User): user is Admin {
    return user.roles.includes(Role.Admin);
  }

  onSelect = async (user: User): Promise<void> => {
    this.log(`selected ${user.id}`);
  };
}

export function parseId(raw: string): UserId;
export function parseId(raw: number): UserId;
export function parseId(raw: string | number): UserId {
  return typeof raw === 'number' ? raw : Number.parseInt(raw, 10);
}

export const retry = async <T>(fn: () => Promise<T>, times = 3): Promise<T> => {
  return ops.retry(times)(fn);
};

export namespace Validation {
  export interface Rule {
    check(value: unknown): boolean;
  }

  export class Required implements Rule {
    check(value: unknown): boolean {
      return value != null;
    }
  }
}

declare module 'express' {
  interface Request {
    user?: User;
  }
}

declare function emit(event: string, ...args: unknown[]): void;
"""

M = "src.app.users.user.service"


def _parse(parse):
    return parse("typescript", "src/app/users/user.service.ts", SERVICE)


def test_definitions_ids_kinds_lines(parse):
    p = _parse(parse)
    assert p.result.issues == []
    assert p.ids == [
        f"{M}.UserId",
        f"{M}.Repository",
        f"{M}.Repository.find",
        f"{M}.Repository.save",
        f"{M}.Role",
        f"{M}.BaseService",
        f"{M}.BaseService.load",
        f"{M}.BaseService.log",
        f"{M}.UserService",
        f"{M}.UserService.constructor",
        f"{M}.UserService.find",
        f"{M}.UserService.find#2",
        f"{M}.UserService.find#3",
        f"{M}.UserService.load",
        f"{M}.UserService.isAdmin",
        f"{M}.UserService.onSelect",
        f"{M}.parseId",
        f"{M}.parseId#2",
        f"{M}.parseId#3",
        f"{M}.retry",
        f"{M}.Validation.Rule",
        f"{M}.Validation.Rule.check",
        f"{M}.Validation.Required",
        f"{M}.Validation.Required.check",
        f"{M}.express.Request",
        f"{M}.emit",
    ]
    shape = {s.id: (s.kind, s.start_line, s.end_line, s.class_name) for s in p.result.symbols}
    assert shape[f"{M}.UserId"] == ("interface", 10, 10, None)  # a type alias
    assert shape[f"{M}.Repository"] == ("interface", 15, 20, None)
    assert shape[f"{M}.Repository.find"] == ("method", 17, 17, "Repository")
    assert shape[f"{M}.Role"] == ("enum", 22, 25, None)
    assert shape[f"{M}.BaseService"] == ("class", 27, 35, None)
    assert shape[f"{M}.BaseService.load"] == ("method", 30, 30, "BaseService")  # abstract
    # the class range starts at its decorator
    assert shape[f"{M}.UserService"] == ("class", 40, 75, None)
    assert shape[f"{M}.UserService.constructor"] == ("method", 44, 49, "UserService")
    # overload signatures, then the implementation
    assert shape[f"{M}.UserService.find"] == ("method", 52, 52, "UserService")
    assert shape[f"{M}.UserService.find#2"] == ("method", 53, 53, "UserService")
    # TS member decorators are siblings of the member, so its range starts below them (55-56)
    assert shape[f"{M}.UserService.find#3"] == ("method", 57, 60, "UserService")
    assert shape[f"{M}.UserService.onSelect"] == ("method", 72, 74, "UserService")
    assert shape[f"{M}.parseId"] == ("function", 77, 77, None)
    assert shape[f"{M}.parseId#3"] == ("function", 79, 81, None)
    assert shape[f"{M}.retry"] == ("function", 83, 85, None)
    # namespaces prefix ids without being symbols
    assert shape[f"{M}.Validation.Required"] == ("class", 92, 96, None)
    assert shape[f"{M}.Validation.Required.check"] == ("method", 93, 95, "Required")
    assert p[f"{M}.Validation.Required.check"].parent == f"{M}.Validation.Required"
    assert p[f"{M}.Validation.Required"].parent is None
    assert shape[f"{M}.express.Request"] == ("interface", 100, 102, None)
    assert shape[f"{M}.emit"] == ("function", 105, 105, None)


def test_bases_decorators_docs(parse):
    p = _parse(parse)
    svc = p[f"{M}.UserService"]
    assert svc.bases == ("BaseService<User>", "OnInit", "Repository<User>")
    assert svc.decorators == ("Injectable({ providedIn: 'root' })",)
    assert svc.docstring == "Users, cached."
    assert svc.signature == (
        "@Injectable({ providedIn: 'root' }) export class UserService extends BaseService<User> "
        "implements OnInit, Repository<User>"
    )
    assert p[f"{M}.Repository"].bases == ("Disposable", "Iterable<T>")
    assert p[f"{M}.Repository"].docstring == "Something that stores entities."
    assert p[f"{M}.Repository.find"].docstring == "Find one entity."
    assert p[f"{M}.UserId"].docstring == "Identifies a user."
    assert p[f"{M}.UserId"].signature == "export type UserId = string | number;"
    assert p[f"{M}.Validation.Required"].bases == ("Rule",)
    assert p[f"{M}.BaseService"].bases == ()
    assert p[f"{M}.BaseService"].signature == "export abstract class BaseService<T>"

    first = p[f"{M}.UserService.find"]
    assert (first.docstring, first.decorators) == ("Look a user up, by id or by name.", ())
    impl = p[f"{M}.UserService.find#3"]
    assert impl.decorators == ("Memoize()", "Trace('users')")
    assert impl.docstring == "The implementation."  # the comment above the decorators


def test_parameters_and_return_types(parse):
    p = _parse(parse)
    find = p[f"{M}.UserService.find#3"]
    assert find.signature == "async find(key: UserId, exact = false): Promise<User | undefined>"
    assert find.parameters == (Parameter("key", "UserId"), Parameter("exact", None, "false"))
    assert find.return_type == "Promise<User | undefined>"
    assert p[f"{M}.UserService.find#2"].parameters == (
        Parameter("name", "string"),
        Parameter("exact", "boolean"),
    )
    # parameter properties and optional parameters
    assert p[f"{M}.UserService.constructor"].parameters == (
        Parameter("baseUrl", "string"),
        Parameter("http?", "HttpClient"),
    )
    assert p[f"{M}.Repository.save"].parameters == (
        Parameter("entity", "T"),
        Parameter("options?", "SaveOptions"),
    )
    assert p[f"{M}.BaseService.log"].parameters == (
        Parameter("message", "string"),
        Parameter("level", "Level", "Level.Info"),
    )
    assert p[f"{M}.BaseService.log"].return_type == "void"
    assert p[f"{M}.BaseService.load"].signature == "abstract load(id: UserId): Promise<T>"
    assert p[f"{M}.UserService.isAdmin"].return_type == "user is Admin"
    assert p[f"{M}.UserService.isAdmin"].signature == "static isAdmin(user: User): user is Admin"
    on_select = p[f"{M}.UserService.onSelect"]
    assert on_select.signature == "onSelect = async (user: User): Promise<void> =>"
    assert on_select.parameters == (Parameter("user", "User"),)
    assert on_select.return_type == "Promise<void>"
    retry = p[f"{M}.retry"]
    assert retry.parameters == (Parameter("fn", "() => Promise<T>"), Parameter("times", None, "3"))
    assert retry.return_type == "Promise<T>"
    assert p[f"{M}.parseId"].signature == "export function parseId(raw: string): UserId;"
    assert p[f"{M}.parseId#3"].parameters == (Parameter("raw", "string | number"),)
    emit = p[f"{M}.emit"]
    assert emit.signature == "declare function emit(event: string, ...args: unknown[]): void;"
    assert emit.parameters == (Parameter("event", "string"), Parameter("...args", "unknown[]"))


def test_calls(parse):
    p = _parse(parse)
    assert p.calls(f"{M}.BaseService.log") == ["Logger.write"]
    assert p.calls(f"{M}.UserService.constructor") == ["Inject", "super"]
    assert p.calls(f"{M}.UserService.find#3") == ["(this.cache = new Map()).get", "this.load"]
    # The grammar reads `await x.get<T>(...)` as a call of `await x.get`; the callee inside counts.
    assert p.calls(f"{M}.UserService.load") == [
        "await this.http!.get<User>(`${this.baseUrl}/users/${id}`).toPromise",
        "(this.http: HttpClient).get",
        "(this.cache = new Map()).set",
    ]
    assert p.calls(f"{M}.UserService.isAdmin") == ["(user: User).roles.includes"]
    assert p.calls(f"{M}.UserService.onSelect") == ["this.log"]
    assert p.calls(f"{M}.parseId#3") == ["Number.parseInt"]
    assert p.calls(f"{M}.retry") == ["ops.retry"]  # `ops.retry(times)(fn)`: the inner call
    # decorators and field initialisers belong to the class
    assert p.calls(f"{M}.UserService") == ["Injectable", "Map", "Memoize", "Trace"]


def test_imports(parse):
    p = _parse(parse)
    assert p.imports == [
        Import("@angular/core", "Injectable", None, 0, 1),
        Import("@angular/core", "Inject", None, 0, 1),
        Import("rxjs", "Observable", None, 0, 2),
        Import("rxjs/operators", None, "ops", 0, 3),
        Import("http", None, "http", 0, 4),
        Import("../logging/logger", "default", "Logger", 2, 5),
        Import("../logging/logger", "LogLevel", "Level", 2, 5),
        Import("./dto", "UserDto", None, 1, 6),
        Import("./errors", "*", None, 1, 7),
    ]


CJS = """
const express = require('express');
const { Router: makeRouter } = require('express');

/** Mount the API. */
export const mount = (app: express.Express, prefix = '/api'): void => {
  app.use(prefix, makeRouter());
};

export default async function (req: Request, res: Response) {
  res.json(await handle(req));
}
"""


def test_require_and_anonymous_default(parse):
    p = parse("typescript", "server/index.ts", CJS)
    assert p.ids == ["server.index.mount", "server.index.default"]
    mount = p["server.index.mount"]
    assert (mount.start_line, mount.end_line, mount.docstring) == (5, 7, "Mount the API.")
    assert mount.parameters == (
        Parameter("app", "express.Express"),
        Parameter("prefix", None, "'/api'"),
    )
    default = p["server.index.default"]
    assert (default.kind, default.start_line, default.end_line) == ("function", 9, 11)
    assert default.signature == "export default async function (req: Request, res: Response)"
    assert p.calls("server.index.default") == ["(res: Response).json", "handle"]
    assert p.imports == [
        Import("express", None, "express", 0, 1),
        Import("express", "Router", "makeRouter", 0, 2),
    ]


# --- typed receivers: the type a reader sees at a glance ---------------------------------------

WS = {
    "src/links/requestManager.ts": """
        export class RequestManager {
          hasPendingRequests(): boolean { return false; }
          register(id: string): void {}
        }
    """,
    "src/links/wsConnection.ts": """
        export class WsConnection {
          isOpen(): boolean { return true; }
          close(): void {}
        }
    """,
    "src/links/encoder.ts": """
        export class Encoder {
          decode(data: string): unknown { return data; }
        }
        export class OtherEncoder {
          decode(data: string): unknown { return data; }
        }
    """,
    "src/links/wsClient.ts": """
        import { RequestManager } from './requestManager';
        import { WsConnection } from './wsConnection';
        import { Encoder } from './encoder';

        export class WsClient {
          private readonly requestManager = new RequestManager();
          private activeConnection: WsConnection;
          constructor(private readonly encoder: Encoder) {
            this.activeConnection = new WsConnection();
          }
          send(data: string) {
            if (this.requestManager.hasPendingRequests()) {
              this.activeConnection.isOpen();
            }
            const decoded = this.encoder.decode(data);
            const conn: WsConnection = this.activeConnection;
            conn.close();
            const manager = new RequestManager();
            manager.register('x');
            return decoded;
          }
        }
    """,
}


def test_typed_receivers_fields_parameter_properties_and_locals(parse, resolved):
    p = parse("typescript", "src/links/wsClient.ts", WS["src/links/wsClient.ts"])
    assert p.calls("src.links.wsClient.WsClient.send")[:3] == [
        "(this.requestManager = new RequestManager()).hasPendingRequests",
        "(this.activeConnection: WsConnection).isOpen",
        "(this.encoder: Encoder).decode",
    ]
    calls = resolved("typescript", WS)
    send = "src.links.wsClient.WsClient.send"
    # a field made by `new`, a typed field, a constructor's parameter property
    assert calls[(send, "src.links.requestManager.RequestManager.hasPendingRequests")] == "exact"
    assert calls[(send, "src.links.wsConnection.WsConnection.isOpen")] == "exact"
    assert calls[(send, "src.links.encoder.Encoder.decode")] == "exact"
    assert (send, "src.links.encoder.OtherEncoder.decode") not in calls
    # `const conn: T = ...` and `const manager = new T()`
    assert calls[(send, "src.links.wsConnection.WsConnection.close")] == "exact"
    assert calls[(send, "src.links.requestManager.RequestManager.register")] == "exact"


# --- module-level names (issue 21) ---------------------------------------------------------------

NAMES = """
import { initTRPC } from "@trpc/server";
export const t = initTRPC.create();
export const DEFAULT_TIMEOUT: number = 30_000;
declare let globalThis: any;
export const router = t.router;
export const publicProcedure = t.procedure.use(async ({ next }) => next());
"""


def test_module_names(parse):
    p = parse("typescript", "src/trpc.ts", NAMES)
    kinds = {s.id: s.kind for s in p.result.symbols if s.kind != "chunk"}
    assert kinds == {
        "src.trpc.t": "variable",
        "src.trpc.DEFAULT_TIMEOUT": "constant",
        "src.trpc.router": "variable",
        "src.trpc.publicProcedure": "variable",
    }
    assert (
        p["src.trpc.DEFAULT_TIMEOUT"].signature == "export const DEFAULT_TIMEOUT: number = 30_000"
    )
