export { readZip, readTarGz, safeEntryPath, IMPORT_LIMITS, type ArchiveFiles, type ArchiveLimits } from './archive.ts';
export { packageFromArchive, type PackageFiles } from './package-files.ts';
