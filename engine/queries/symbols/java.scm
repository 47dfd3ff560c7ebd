; Symbol facts for Java (captures: engine/symbols/plugin.ts).

(package_declaration [(identifier) (scoped_identifier)] @package.name)

; Calls.
(method_invocation object: (_) @call.receiver name: (identifier) @call.name arguments: (argument_list) @call.args)
(method_invocation !object name: (identifier) @call.name arguments: (argument_list) @call.args)
(object_creation_expression type: (_) @call.name arguments: (argument_list) @call.args) @call.new
(explicit_constructor_invocation constructor: (super) @call.super arguments: (argument_list) @call.args)
(explicit_constructor_invocation constructor: (this) @call.this arguments: (argument_list) @call.args)

; Method references.
(method_reference . (_) @value.receiver . (identifier) @value.name)

; Types in declarations.
(method_declaration type: (_) @type.expr)
(catch_type (_) @type.expr)
(cast_expression type: (_) @type.expr)
(instanceof_expression right: (_) @type.expr)

; Supertypes.
(superclass (_) @super.extends)
(super_interfaces (type_list (_) @super.implements))
(extends_interfaces (type_list (_) @super.extends))

; Definition attributes.
(method_declaration parameters: (formal_parameters) @def.params)
(constructor_declaration parameters: (formal_parameters) @def.params)
(method_declaration type: (_) @def.returns)
(method_declaration (modifiers "static" @def.static))

; Typed names (a declared type is also a type reference).
(formal_parameter type: (_) @bind.type name: (identifier) @bind.param)
(local_variable_declaration type: (_) @bind.type declarator: (variable_declarator name: (identifier) @bind.local))
(local_variable_declaration
  declarator: (variable_declarator name: (identifier) @bind.local value: (object_creation_expression type: (_) @bind.new)))
(field_declaration type: (_) @bind.type declarator: (variable_declarator name: (identifier) @bind.field))
(enhanced_for_statement type: (_) @bind.type name: (identifier) @bind.local)
(resource type: (_) @bind.type name: (identifier) @bind.local)

; Untyped local names (lambda parameters).
(lambda_expression parameters: (identifier) @local)
(inferred_parameters (identifier) @local)

; Imports.
(import_declaration (scoped_identifier) @import.source (asterisk)? @import.wildcard) @import
