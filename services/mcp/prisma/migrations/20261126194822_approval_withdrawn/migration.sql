-- MCP tasks: an approval the requesting agent withdrew (tasks/cancel) before anyone decided is 'withdrawn',
-- resolved via 'mcp'. Values are only added, so every stored row keeps its meaning.

-- AlterEnum
ALTER TYPE "ApprovalResolver" ADD VALUE 'mcp';

-- AlterEnum
ALTER TYPE "ApprovalStatus" ADD VALUE 'withdrawn';
