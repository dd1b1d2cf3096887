// As sapphiredev/examples' with-typescript-starter lays a bot out: plugins are registered in setup.ts, imported first.
process.env.NODE_ENV ??= 'development';

import { ApplicationCommandRegistries, RegisterBehavior } from '@sapphire/framework';
import 'sapphire-plugin-memory/register';

ApplicationCommandRegistries.setDefaultBehaviorWhenNotIdentical(RegisterBehavior.BulkOverwrite);
