; Symbol facts for Scala (captures: engine/symbols/plugin.ts).

(package_clause name: (package_identifier) @package.name)

; Calls: `f(x)`, `a.f(x)`, `new T(x)`, `T(x)` (a case class's apply: the class), generic `f[T](x)`.
(call_expression function: (identifier) @call.name arguments: (arguments) @call.args)
(call_expression function: (field_expression value: (_) @call.receiver field: (identifier) @call.name) arguments: (arguments) @call.args)
(call_expression function: (generic_function function: (identifier) @call.name) arguments: (arguments) @call.args)
(call_expression
  function: (generic_function function: (field_expression value: (_) @call.receiver field: (identifier) @call.name))
  arguments: (arguments) @call.args)
(instance_expression [(type_identifier) (generic_type) (stable_type_identifier)] @call.name arguments: (arguments)? @call.args) @call.new

; Types in declarations.
(parameter type: (_) @type.expr)
(class_parameter type: (_) @type.expr)
(function_definition return_type: (_) @type.expr)
(function_declaration return_type: (_) @type.expr)
(val_definition type: (_) @type.expr)
(var_definition type: (_) @type.expr)

; Supertypes: `extends A(...) with B with C` (the first may be a class or a trait; the resolver labels by kind).
(extends_clause type: (_) @super.extends)

; Definition attributes.
(function_definition parameters: (parameters) @def.params)
(function_declaration parameters: (parameters) @def.params)
(function_definition return_type: (_) @def.returns)
(function_declaration return_type: (_) @def.returns)

; Typed names.
(parameter name: (identifier) @bind.param type: (_) @bind.type)
(class_parameter name: (identifier) @bind.field type: (_) @bind.type)
(val_definition pattern: (identifier) @bind.local type: (_) @bind.type)
(var_definition pattern: (identifier) @bind.local type: (_) @bind.type)
(val_definition pattern: (identifier) @bind.local value: (instance_expression [(type_identifier) (generic_type) (stable_type_identifier)] @bind.new))
(val_definition pattern: (identifier) @bind.local value: (call_expression function: (_) @bind.call))

; Untyped local names (lambda parameters, pattern variables).
(lambda_expression parameters: (bindings (binding name: (identifier) @local)))
(lambda_expression parameters: (identifier) @local)
(val_definition pattern: (identifier) @local)
(var_definition pattern: (identifier) @local)

; Imports (the same specs as engine/languages/scala.ts reads).
(import_declaration) @import.source @import
