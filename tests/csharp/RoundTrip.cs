// Reads cases from stdin, one per line: a type's full name, a tab, JSON. Each
// is read into the type with the dispatcher's serializer and written back;
// the written JSON (or `ERROR <message>` when reading fails) is printed, one
// line per case. tests/tests/csharp.rs compares the lines with what it expects.
using System;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;
using Toolgen.Bridge;

public static class RoundTrip
{
    public static int Main()
    {
        JsonSerializer serializer = new ToolDispatcher(new ToolSpec[0]).Serializer;
        string line;
        while ((line = Console.ReadLine()) != null)
        {
            string[] parts = line.Split(new[] { '\t' }, 2);
            Type type = Type.GetType(parts[0]);
            if (type == null)
            {
                Console.WriteLine("ERROR no type " + parts[0]);
                continue;
            }
            try
            {
                JsonTextReader reader = new JsonTextReader(new System.IO.StringReader(parts[1]));
                reader.FloatParseHandling = FloatParseHandling.Double;
                reader.DateParseHandling = DateParseHandling.None;
                object value = serializer.Deserialize(reader, type);
                Console.WriteLine(JToken.FromObject(value, serializer).ToString(Formatting.None));
            }
            catch (JsonException e)
            {
                Console.WriteLine("ERROR " + e.Message.Replace('\n', ' '));
            }
        }
        return 0;
    }
}
