import '../../src/register';
import { storeOutageSuite } from '../support/outage';
import { privatePostgres } from '../support/private-servers';

// A PostgreSQL cluster of the test's own (initdb in a temporary directory), stopped and started again; the shared one on 5432 is never touched.
storeOutageSuite(privatePostgres);
