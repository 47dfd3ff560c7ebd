; Symbol facts for Go (captures: engine/symbols/plugin.ts).

(package_clause (package_identifier) @package.name)

; Calls.
(call_expression function: (identifier) @call.name)
(call_expression function: (selector_expression operand: (_) @call.receiver field: (field_identifier) @call.name))
(call_expression function: (parenthesized_expression) @call.dynamic)

; Functions and methods used as values.
(argument_list (identifier) @value.name)
(argument_list (selector_expression operand: (_) @value.receiver field: (field_identifier) @value.name))
(keyed_element (literal_element (identifier) @value.name) .)
(keyed_element (literal_element (selector_expression operand: (_) @value.receiver field: (field_identifier) @value.name)) .)
(assignment_statement right: (expression_list (identifier) @value.name))
(assignment_statement right: (expression_list (selector_expression operand: (_) @value.receiver field: (field_identifier) @value.name)))
(return_statement (expression_list (identifier) @value.name))

; Types in signatures, fields, declarations and composite literals.
(parameter_declaration !name type: (_) @type.expr)
(variadic_parameter_declaration type: (_) @type.expr)
(function_declaration result: (_) @type.expr)
(method_declaration result: (_) @type.expr)
(composite_literal type: (_) @type.expr)
(type_assertion_expression type: (_) @type.expr)

; Supertypes: embedded structs and interfaces.
(field_declaration_list (field_declaration !name type: (_) @super.extends))
(interface_type (type_elem . (_) @super.extends .))

; Definition attributes.
(method_declaration
  receiver: (parameter_list (parameter_declaration name: (identifier)? @def.self type: (_) @def.receiver)))
(function_declaration parameters: (parameter_list) @def.params)
(method_declaration parameters: (parameter_list) @def.params)
(function_declaration result: (_) @def.returns)
(method_declaration result: (_) @def.returns)

; Typed names (a parameter or variable is also a local; a declared type is also a type reference).
(parameter_declaration name: (identifier) @bind.param type: (_) @bind.type)
(field_declaration name: (field_identifier) @bind.field type: (_) @bind.type)
(var_spec name: (identifier) @bind.local type: (_) @bind.type)
(short_var_declaration
  left: (expression_list . (identifier) @bind.local)
  right: (expression_list . (composite_literal type: (_) @bind.new)))
(short_var_declaration
  left: (expression_list . (identifier) @bind.local)
  right: (expression_list . (unary_expression operand: (composite_literal type: (_) @bind.new))))
(short_var_declaration
  left: (expression_list . (identifier) @bind.local)
  right: (expression_list . (call_expression function: [(identifier) (selector_expression)] @bind.call)))
(var_spec
  name: (identifier) @bind.local
  value: (expression_list . (unary_expression operand: (composite_literal type: (_) @bind.new))))
(var_spec
  name: (identifier) @bind.local
  value: (expression_list . (composite_literal type: (_) @bind.new)))
(var_spec name: (identifier) @bind.local value: (expression_list . (call_expression function: [(identifier) (selector_expression)] @bind.call)))

; Untyped local names (they shadow outer names).
(variadic_parameter_declaration name: (identifier) @local)
(short_var_declaration left: (expression_list (identifier) @local))
(range_clause left: (expression_list (identifier) @local))

; Imports.
(import_spec name: (_)? @import.alias path: (interpreted_string_literal) @import.source) @import
