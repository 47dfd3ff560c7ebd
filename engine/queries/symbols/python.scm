; Symbol facts for Python (captures: engine/symbols/plugin.ts).

; A decorator's uses belong to the function or class it decorates.
(decorated_definition (decorator) @decorator definition: (_ name: (identifier) @decorator.owner))

; Calls (a decorator is a call of the decorator with the function).
(call function: (identifier) @call.name)
(call function: (attribute object: (_) @call.receiver attribute: (identifier) @call.name))
(call function: (subscript) @call.dynamic)
(call function: (call function: (identifier) @_f (#match? @_f "^(getattr|eval|exec)$")) @call.dynamic)
(decorator (identifier) @call.name)
(decorator (attribute object: (_) @call.receiver attribute: (identifier) @call.name))

; Functions and methods used as values.
(argument_list (identifier) @value.name)
(keyword_argument value: (identifier) @value.name)
(pair value: (identifier) @value.name)
(list (identifier) @value.name)
(assignment right: (identifier) @value.name)
; Any attribute read: a method used as a value or a property (a call's own attribute is dropped by the extraction).
(attribute object: (_) @value.receiver attribute: (identifier) @value.name)
(return_statement (identifier) @value.name)

; Types in annotations.
(function_definition return_type: (type) @type.expr)

; Supertypes.
(class_definition superclasses: (argument_list [(identifier) (attribute)] @super.extends))

; Definition attributes.
(function_definition parameters: (parameters) @def.params)
(function_definition return_type: (type) @def.returns)
(decorated_definition
  (decorator (identifier) @_d (#match? @_d "^(staticmethod|classmethod)$"))
  definition: (function_definition name: (identifier) @def.static))

; Typed names (a parameter or variable is also a local; a declared type is also a type reference).
(typed_parameter (identifier) @bind.param type: (type) @bind.type)
(typed_default_parameter name: (identifier) @bind.param type: (type) @bind.type)
(assignment left: (identifier) @bind.local type: (type) @bind.type)
(assignment left: (identifier) @bind.local right: (call function: [(identifier) (attribute)] @bind.call))
(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @bind.field) type: (type) @bind.type
  (#eq? @_self "self"))
(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @bind.field)
  right: (call function: [(identifier) (attribute)] @bind.call)
  (#eq? @_self "self"))
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @bind.field)
  right: (identifier) @bind.alias
  (#eq? @_self "self"))
(with_item value: (as_pattern (call function: [(identifier) (attribute)] @bind.call) alias: (as_pattern_target (identifier) @bind.local)))

; Untyped local names (they shadow outer names).
(parameters (identifier) @local)
(default_parameter name: (identifier) @local)
(list_splat_pattern (identifier) @local)
(dictionary_splat_pattern (identifier) @local)
(lambda_parameters (identifier) @local)
(assignment left: (identifier) @local)
(pattern_list (identifier) @local)
(tuple_pattern (identifier) @local)
(for_statement left: (identifier) @local)
(for_in_clause left: (identifier) @local)
(as_pattern_target (identifier) @local)
(global_statement (identifier) @local)

; Imports (specs as engine/languages/python.ts writes them).
(import_statement name: (dotted_name) @import.module) @import
(import_statement name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias)) @import
(import_from_statement module_name: (_) @import.from name: (dotted_name) @import.name) @import
(import_from_statement
  module_name: (_) @import.from
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import
(import_from_statement module_name: (_) @import.from (wildcard_import)) @import
