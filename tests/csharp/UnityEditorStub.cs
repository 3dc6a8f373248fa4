// The UnityEditor APIs the generated bridge uses under `#if UNITY_EDITOR`, with
// Unity's signatures (UnityEditor.EditorApplication.update is a CallbackFunction
// field; AssemblyReloadEvents.beforeAssemblyReload an AssemblyReloadCallback event),
// so that tests/tests/csharp.rs can compile the Unity-only code path with mcs.
namespace UnityEditor
{
    /// <summary>Stub of UnityEditor.EditorApplication.</summary>
    public static class EditorApplication
    {
        /// <summary>Unity's delegate type for editor callbacks.</summary>
        public delegate void CallbackFunction();

        /// <summary>Called on every editor update, on the main thread.</summary>
        public static CallbackFunction update;

        /// <summary>
        /// Whether the editor window has focus (for tests). An unfocused Unity Editor stops
        /// running its update loop until something asks for an update.
        /// </summary>
        public static volatile bool Focused = true;

        private static volatile bool updateQueued;

        /// <summary>Unity's request for one more editor update, even while unfocused.</summary>
        public static void QueuePlayerLoopUpdate()
        {
            updateQueued = true;
        }

        /// <summary>Runs one editor update if a focused editor would, or one was queued (for tests).</summary>
        public static void Tick()
        {
            if (!Focused && !updateQueued)
            {
                return;
            }
            updateQueued = false;
            if (update != null)
            {
                update();
            }
        }
    }

    /// <summary>Stub of UnityEditor.AssemblyReloadEvents.</summary>
    public static class AssemblyReloadEvents
    {
        /// <summary>Unity's delegate type for reload callbacks.</summary>
        public delegate void AssemblyReloadCallback();

        /// <summary>Raised before scripts are reloaded.</summary>
        public static event AssemblyReloadCallback beforeAssemblyReload;

        /// <summary>Raises the event (for tests).</summary>
        public static void Reload()
        {
            if (beforeAssemblyReload != null)
            {
                beforeAssemblyReload();
            }
        }
    }
}

namespace UnityEngine
{
    /// <summary>Stub of UnityEngine.Debug: warnings go to standard error.</summary>
    public static class Debug
    {
        /// <summary>Logs a warning to the Unity console (here: standard error).</summary>
        public static void LogWarning(object message)
        {
            System.Console.Error.WriteLine(message);
        }
    }
}
