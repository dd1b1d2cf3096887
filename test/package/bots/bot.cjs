// A CommonJS bot: loads the built plugin by its package name and reports what it registered.
require('sapphire-plugin-memory/register');
const { MemoryEvents } = require('sapphire-plugin-memory');
const { SapphireClient, container } = require('@sapphire/framework');
require('./report.cjs')({ SapphireClient, container, MemoryEvents, format: 'cjs' });
