; JSX components are calls of their function: `<Button/>`, `<Layout.Main>`; not `<div>`.
(jsx_opening_element name: (identifier) @call (#match? @call "^[A-Z]"))
(jsx_self_closing_element name: (identifier) @call (#match? @call "^[A-Z]"))
(jsx_opening_element name: (member_expression) @call)
(jsx_self_closing_element name: (member_expression) @call)
