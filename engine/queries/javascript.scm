; Definitions: @definition.<chunk type> on the node, @name on its name.
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class
(method_definition name: (_) @name) @definition.method
(lexical_declaration
  (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function

; Imports: @import.source is the module specifier.
(import_statement source: (string) @import.source) @import
(export_statement source: (string) @import.source) @import
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string) @import.source)
  (#eq? @_require "require")) @import
(call_expression function: (import) arguments: (arguments . (string) @import.source)) @import

; Exports.
(export_statement declaration: (_ name: (_) @export.name))
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @export.name)))
(export_statement (export_clause (export_specifier alias: (_) @export.name)))
(export_statement (export_clause (export_specifier !alias name: (_) @export.name)))
(export_statement "default" @export.name)
