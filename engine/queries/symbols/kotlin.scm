; Symbol facts for Kotlin (captures: engine/symbols/plugin.ts). The grammar names few fields: children by position.

(package_header (qualified_identifier) @package.name)

; Calls: `f()`, `a.f()`, `a?.f()`, `this.f()`, `super.f()`, a trailing lambda without parentheses. A call of a
; class name is its construction (Kotlin has no `new`).
(call_expression . (identifier) @call.name . (value_arguments)? @call.args)
(call_expression . (navigation_expression (_) @call.receiver . (identifier) @call.name .) . (value_arguments)? @call.args)

; Callable references: `::f`, `Type::f`, `obj::f`.
(callable_reference . (identifier) @value.name .)
(callable_reference (_) @value.receiver . (identifier) @value.name .)

; Types in declarations.
(parameter (_) @type.expr .)
(class_parameter (user_type) @type.expr)
(class_parameter (nullable_type) @type.expr)
(function_declaration (function_value_parameters) . (user_type) @type.expr)
(function_declaration (function_value_parameters) . (nullable_type) @type.expr)
(property_declaration (variable_declaration (identifier) . (_) @type.expr))
(as_expression (_) (user_type) @type.expr)
(is_expression (_) (user_type) @type.expr)

; Supertypes: `: Base()` (a constructor call: the superclass) and `: Iface` (an interface, or a class when the
; subclass has no primary constructor; the resolver labels by the target's kind).
(delegation_specifier (constructor_invocation (user_type) @super.extends))
(delegation_specifier . (user_type) @super.implements)
(delegation_specifier (explicit_delegation (user_type) @super.implements))

; Definition attributes.
(function_declaration (function_value_parameters) @def.params)
(function_declaration (function_value_parameters) . (user_type) @def.returns)
(function_declaration (function_value_parameters) . (nullable_type) @def.returns)
(companion_object (class_body (function_declaration) @def.static))
(object_declaration (class_body (function_declaration) @def.static))

; Typed names.
(parameter (identifier) @bind.param . (_) @bind.type)
(class_parameter (identifier) @bind.field . (user_type) @bind.type)
(class_parameter (identifier) @bind.field . (nullable_type) @bind.type)
(property_declaration (variable_declaration (identifier) @bind.local . (_) @bind.type))
(property_declaration (variable_declaration (identifier) @bind.local .) . (call_expression . [(identifier) (navigation_expression)] @bind.call))

; Untyped local names (lambda parameters).
(lambda_parameters (variable_declaration (identifier) @local))

; Imports (the same spec as engine/languages/kotlin.ts reads).
(import (qualified_identifier) @import.source) @import
