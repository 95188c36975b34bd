from codebot.core.model import Import, Parameter

COMPONENT = """
import React, { useEffect, useState } from 'react';
import type { FC, ReactNode } from 'react';
import * as UI from '@acme/ui';
import { fetchUsers as loadUsers } from '../api/users';
import styles from './UserList.module.css';

export interface UserListProps {
  /** Rows to show before paging. */
  pageSize?: number;
  renderEmpty?: () => ReactNode;
  onSelect(user: User): void;
}

type Sort = 'name' | 'created';

/**
 * Lists users, a page at a time.
 */
export const UserList: FC<UserListProps> = ({ pageSize = 20, onSelect }) => {
  const [users, setUsers] = useState<User[]>([]);

  useEffect(() => {
    const request = loadUsers({ limit: pageSize });
    request.then(setUsers);
  }, [pageSize]);

  const handleClick = (user: User) => () => onSelect(user);

  return (
    <UI.Panel title="Users" className={styles.panel}>
      {users.map((u) => (
        <UserRow key={u.id} user={u} onClick={handleClick(u)} />
      ))}
      <div className={styles.footer}>
        <Pager size={pageSize} />
      </div>
    </UI.Panel>
  );
};

function UserRow({ user, onClick }: { user: User; onClick: () => void }): JSX.Element {
  return <li onClick={onClick}>{user.name}</li>;
}

export default class ErrorBoundary extends React.Component<Props, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  componentDidCatch(error: Error, info: React.ErrorInfo): void {
    reportError(error, info.componentStack);
  }

  render() {
    return this.state.error ? <ErrorPage error={this.state.error} /> : this.props.children;
  }
}

export async function getServerSideProps(ctx: GetServerSidePropsContext) {
  const sort: Sort = (ctx.query.sort as Sort) ?? 'name';
  return { props: { users: await loadUsers({ sort }) } };
}
"""

M = "src.components.UserList"


def _parse(parse):
    return parse("tsx", "src/components/UserList.tsx", COMPONENT)


def test_definitions_ids_kinds_lines(parse):
    p = _parse(parse)
    assert p.result.issues == []
    assert p.ids == [
        f"{M}.UserListProps",
        f"{M}.UserListProps.onSelect",
        f"{M}.Sort",
        f"{M}.UserList",
        f"{M}.UserList.handleClick",
        f"{M}.UserRow",
        f"{M}.ErrorBoundary",
        f"{M}.ErrorBoundary.getDerivedStateFromError",
        f"{M}.ErrorBoundary.componentDidCatch",
        f"{M}.ErrorBoundary.render",
        f"{M}.getServerSideProps",
    ]
    shape = {s.id: (s.kind, s.start_line, s.end_line, s.class_name) for s in p.result.symbols}
    assert shape[f"{M}.UserListProps"] == ("interface", 7, 12, None)
    assert shape[f"{M}.UserListProps.onSelect"] == ("method", 11, 11, "UserListProps")
    assert shape[f"{M}.Sort"] == ("interface", 14, 14, None)
    assert shape[f"{M}.UserList"] == ("function", 19, 39, None)
    assert shape[f"{M}.UserList.handleClick"] == ("function", 27, 27, None)
    assert shape[f"{M}.UserRow"] == ("function", 41, 43, None)
    assert shape[f"{M}.ErrorBoundary"] == ("class", 45, 59, None)
    assert shape[f"{M}.ErrorBoundary.render"] == ("method", 56, 58, "ErrorBoundary")
    assert shape[f"{M}.getServerSideProps"] == ("function", 61, 64, None)


def test_components_props_and_docs(parse):
    p = _parse(parse)
    user_list = p[f"{M}.UserList"]
    assert user_list.signature == (
        "export const UserList: FC<UserListProps> = ({ pageSize = 20, onSelect }) =>"
    )
    assert user_list.parameters == (Parameter("{ pageSize = 20, onSelect }"),)
    assert user_list.docstring == "Lists users, a page at a time."
    assert p[f"{M}.UserList.handleClick"].parameters == (Parameter("user", "User"),)
    row = p[f"{M}.UserRow"]
    assert row.parameters == (
        Parameter("{ user, onClick }", "{ user: User; onClick: () => void }"),
    )
    assert row.return_type == "JSX.Element"
    boundary = p[f"{M}.ErrorBoundary"]
    assert boundary.bases == ("React.Component<Props, State>",)
    assert boundary.signature == (
        "export default class ErrorBoundary extends React.Component<Props, State>"
    )
    did_catch = p[f"{M}.ErrorBoundary.componentDidCatch"]
    assert did_catch.parameters == (
        Parameter("error", "Error"),
        Parameter("info", "React.ErrorInfo"),
    )
    assert did_catch.return_type == "void"
    gssp = p[f"{M}.getServerSideProps"]
    assert gssp.signature == (
        "export async function getServerSideProps(ctx: GetServerSidePropsContext)"
    )
    assert gssp.return_type is None


def test_jsx_components_are_calls(parse):
    p = _parse(parse)
    # <UI.Panel>, <UserRow/>, <Pager/> are calls; <div> is not; the closing tag is not a second call
    assert p.calls(f"{M}.UserList") == [
        "useState",
        "useEffect",
        "loadUsers",
        "(request = loadUsers()).then",
        "UI.Panel",
        "users.map",
        "UserRow",
        "handleClick",
        "Pager",
    ]
    assert p.calls(f"{M}.UserList.handleClick") == ["onSelect"]
    assert p.calls(f"{M}.UserRow") == []
    assert p.calls(f"{M}.ErrorBoundary.render") == ["ErrorPage"]
    assert p.calls(f"{M}.getServerSideProps") == ["loadUsers"]
    line = {c.name: c.line for c in p[f"{M}.UserList"].calls}
    assert (line["UI.Panel"], line["UserRow"], line["Pager"]) == (30, 32, 35)


def test_imports(parse):
    p = _parse(parse)
    assert p.imports == [
        Import("react", "default", "React", 0, 1),
        Import("react", "useEffect", None, 0, 1),
        Import("react", "useState", None, 0, 1),
        Import("react", "FC", None, 0, 2),
        Import("react", "ReactNode", None, 0, 2),
        Import("@acme/ui", None, "UI", 0, 3),
        Import("../api/users", "fetchUsers", "loadUsers", 2, 4),
        Import("./UserList.module.css", "default", "styles", 1, 5),
    ]
