; Symbol facts for TypeScript (captures: engine/symbols/plugin.ts).

; Calls.
(call_expression function: (identifier) @call.name)
(call_expression
  function: (member_expression object: (_) @call.receiver property: [(property_identifier) (private_property_identifier)] @call.name))
(call_expression function: (subscript_expression) @call.dynamic)
(call_expression function: (super) @call.super)
(new_expression constructor: [(identifier) (member_expression)] @call.name) @call.new

; Functions and methods used as values.
(arguments (identifier) @value.name)
(arguments (member_expression object: (_) @value.receiver property: (property_identifier) @value.name))
(pair value: (identifier) @value.name)
(pair value: (member_expression object: (_) @value.receiver property: (property_identifier) @value.name))
(shorthand_property_identifier) @value.name
(array (identifier) @value.name)
(assignment_expression right: (identifier) @value.name)
(assignment_expression right: (member_expression object: (this) @value.receiver property: (property_identifier) @value.name))
(variable_declarator value: (identifier) @value.name)
(return_statement (identifier) @value.name)

; Types in annotations.
(method_definition return_type: (type_annotation (_) @type.expr))
(function_declaration return_type: (type_annotation (_) @type.expr))
(arrow_function return_type: (type_annotation (_) @type.expr))
(method_signature return_type: (type_annotation (_) @type.expr))
(type_arguments (_) @type.expr)

; Supertypes.
(class_heritage (extends_clause value: (_) @super.extends))
(class_heritage (implements_clause (_) @super.implements))
(extends_type_clause type: (_) @super.extends)

; Definition attributes.
(method_definition parameters: (formal_parameters) @def.params)
(function_declaration parameters: (formal_parameters) @def.params)
(method_definition return_type: (type_annotation (_) @def.returns))
(function_declaration return_type: (type_annotation (_) @def.returns))
(variable_declarator value: (arrow_function return_type: (type_annotation (_) @def.returns)))
(method_definition "static" @def.static)

; Typed names (a parameter or variable is also a local; a declared type is also a type reference).
(required_parameter pattern: (identifier) @bind.param type: (type_annotation (_) @bind.type))
(optional_parameter pattern: (identifier) @bind.param type: (type_annotation (_) @bind.type))
(required_parameter (accessibility_modifier) pattern: (identifier) @bind.field type: (type_annotation (_) @bind.type))
(public_field_definition name: (property_identifier) @bind.field type: (type_annotation (_) @bind.type))
(public_field_definition name: (property_identifier) @bind.field value: (new_expression constructor: (_) @bind.new))
(variable_declarator name: (identifier) @bind.local type: (type_annotation (_) @bind.type))
(variable_declarator name: (identifier) @bind.local value: (new_expression constructor: (_) @bind.new))
(variable_declarator name: (identifier) @bind.local value: (call_expression function: [(identifier) (member_expression)] @bind.call))
(variable_declarator name: (identifier) @bind.local value: (await_expression (call_expression function: [(identifier) (member_expression)] @bind.call)))
(assignment_expression
  left: (member_expression object: (this) property: (property_identifier) @bind.field)
  right: (new_expression constructor: (_) @bind.new))
(assignment_expression left: (identifier) @bind.local right: (new_expression constructor: (_) @bind.new))
(assignment_expression
  left: (member_expression object: (this) property: (property_identifier) @bind.field)
  right: (identifier) @bind.alias)

; Untyped local names (they shadow outer names).
(required_parameter pattern: (identifier) @local)
(optional_parameter pattern: (identifier) @local)
(arrow_function parameter: (identifier) @local)
(variable_declarator name: (identifier) @local)
(shorthand_property_identifier_pattern) @local
(array_pattern (identifier) @local)
(catch_clause parameter: (identifier) @local)

; The default export.
(export_statement "default" declaration: (_ name: (_) @export.default))
(export_statement "default" value: (identifier) @export.default)

; Imports and re-exports.
(import_statement (import_clause (identifier) @import.default) source: (string) @import.source) @import
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string) @import.source) @import
(import_statement (import_clause (namespace_import (identifier) @import.namespace)) source: (string) @import.source) @import
(import_require_clause (identifier) @import.namespace source: (string) @import.source) @import
(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))
  source: (string) @import.source) @import @import.reexport
(export_statement "*" source: (string) @import.source) @import @import.reexport
(variable_declarator
  name: (identifier) @import.namespace
  value: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.source))
  (#eq? @_require "require")) @import
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import.pattern)
  value: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.source))
  (#eq? @_require "require")) @import
