-- The AGE graph `service`: vertices File and Symbol, edges depends_on (file -> file) and defines (file -> symbol).
SELECT ag_catalog.create_graph('service');
SELECT ag_catalog.create_vlabel('service', 'File');
SELECT ag_catalog.create_vlabel('service', 'Symbol');
SELECT ag_catalog.create_elabel('service', 'depends_on');
SELECT ag_catalog.create_elabel('service', 'defines');
