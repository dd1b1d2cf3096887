import '../../src/register';
import { storeOutageSuite } from '../support/outage';
import { privateRedis } from '../support/private-servers';

// A redis-server of the test's own, killed, restarted and frozen; the shared one on 6379 is never touched.
storeOutageSuite(privateRedis);
