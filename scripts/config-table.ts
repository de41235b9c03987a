// Prints the README's configuration table from the option definitions (node --import tsx scripts/config-table.ts).
import { configTable } from '../src/config/config-table.ts';

console.log(configTable());
