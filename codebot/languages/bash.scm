; Bash (the `shell` language: .sh, .bash, .zsh, a `sh` shebang). `f() { }`, `function f { }`,
; `function f() { }` are functions; top-level assignments (`MAX=3`, `export NVM_DIR=...`,
; `readonly X=1`) are values.
(function_definition name: (word) @name) @definition.function
(program (variable_assignment name: (variable_name) @name) @definition.variable)
(program (declaration_command (variable_assignment name: (variable_name) @name)) @definition.variable)

; Every command is a call by its name (`nvm_echo`, `grep`): the resolver tells the repository's
; functions from programs and builtins. A computed name (`"$cmd" x`) is no word: not recorded.
(command name: (command_name (word) @call))

; `source lib.sh`, `. "$DIR/lib.sh"`.
((command name: (command_name (word) @_src) argument: (_)) @import
 (#match? @_src "^(source|\\.)$"))
