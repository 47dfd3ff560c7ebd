(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (_) @name) @definition.namespace
(module name: (_) @name) @definition.module
(method_definition name: (_) @name) @definition.method
(interface_body (method_signature name: (_) @name) @definition.method)
(class_body (abstract_method_signature name: (_) @name) @definition.method)
(lexical_declaration
  (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function

(import_statement source: (string) @import.source) @import
(export_statement source: (string) @import.source) @import
(import_require_clause source: (string) @import.source) @import
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string) @import.source)
  (#eq? @_require "require")) @import
(call_expression function: (import) arguments: (arguments . (string) @import.source)) @import

(export_statement declaration: (_ name: (_) @export.name))
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @export.name)))
(export_statement (export_clause (export_specifier alias: (_) @export.name)))
(export_statement (export_clause (export_specifier !alias name: (_) @export.name)))
(export_statement "default" @export.name)
